#!/bin/sh
# timer_10000_rpcs_slow_server.sh MAX_RESENDS
#
# The timer with 10,000 outstanding RPCs: one socket holds 10,000 requests
# of another on loopback without reading them. The timer looks only at
# RPCs that are due (a wheel per socket) and measures silence from the
# tick of the last sign of life, so a tick stays short (~0.4 ms per run,
# ~400 RPCs checked, on the distro kernel under TCG; before: 23.6 ms per
# tick on debug) and a request to a host that does not exist still times
# out near timeout_ticks (106-116 ms for 104 ms; before, 300 RPCs
# stretched timeouts to ~3 s). Both families, in one run (each check
# holds its own 10,000 requests).
#
# Then a slow server (guest 1 answers one request at a time, each 10 ms
# after it arrived) gets 200 one-packet requests from one socket of guest
# 0, IPv4 and IPv6: all complete, none time out, RESENDs stay within
# resend_peer_limit per tick and MAX_RESENDS per RPC, and nearly all draw
# their BUSY before the run ends (before the back-off, 200 RPCs drew
# 75,529 RESENDs in 60 s on the debug kernel without completing).
# all_programs_debug runs the same on the debug kernel, with 2,000 RPCs.
. "$(dirname "$0")/lib.sh"
max=${1:?MAX_RESENDS}
hold="sysctl -qw net.homa.max_server_rpcs=20000 net.homa.max_server_rpcs_per_peer=20000"
lab_on 0 "$hold && homa_test_overload hold --rpcs 10000 --hold-ms 2000 --max-tick-us 1500 --dead $HOMALAB_UNUSED_IP4 --dead $HOMALAB_UNUSED_IP6"
echo_start 1 520 4 --delay-ms 10
echo_start 1 620 6 --delay-ms 10
lab_on 0 "homa_test_overload --server $HOMALAB_G1_IP4 --port 520 --rpcs 200 --max-resends $max"
lab_on 0 "homa_test_overload --server $HOMALAB_G1_IP6 --port 620 --rpcs 200 --max-resends $max"
echo_stop 1 520
echo_stop 1 620
