#!/bin/sh
# slow_server_2000_rpcs_ipv6.sh MAX_RESENDS - a soak test: the 2,000-RPC
# slow-server run of timer_10000_rpcs_slow_server.sh over IPv6 (91 s
# measured on the debug kernel; the default suite runs 2,000 over IPv4 in
# all_programs_debug and 200 over both families).
. "$(dirname "$0")/lib.sh"
max=${1:?MAX_RESENDS}
lab_on 1 "sysctl -qw net.homa.max_server_rpcs=20000 net.homa.max_server_rpcs_per_peer=20000"
echo_start 1 620 6 --delay-ms 10
lab_on 0 "homa_test_overload --server $HOMALAB_G1_IP6 --port 620 --rpcs 2000 --max-resends $max"
echo_stop 1 620
