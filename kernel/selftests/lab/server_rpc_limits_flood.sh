#!/bin/sh
# server_rpc_limits_flood.sh PKTGEN COUNT PPS - a flood of COUNT crafted
# DATA with distinct ids at PPS a second (limits_host.sh, homa-pktgen on
# the lab host) against an echo server with a 2-bpage pool: IPv4 meets the
# per-peer limit (max_server_rpcs_per_peer 50), IPv6 the per-socket one
# (max_server_rpcs 40); at least 75% of the flood must reach Homa (paced
# so that the guest's NIC keeps up). homa_test_limits checks the guest,
# one family's flood variant after each flood ("-V ipv6 -f flood": the
# harness's filters stop at the first match).
. "$(dirname "$0")/lib.sh"
host="sh $(dirname "$0")/../limits_host.sh ${1:?PKTGEN}"
count=${2:?COUNT}
pps=${3:?PPS}
d=/proc/sys/net/homa
lab_on 0 "echo 1000 > $d/max_server_rpcs && echo 50 > $d/max_server_rpcs_per_peer"
echo_start 0 711 4 --bpages 2
lab_on 0 "homa_test_limits monitor --file /tmp/mon4"
lab_host "$host flood 4 711 $count $pps"
lab_on 0 "homa_test_limits --port 711 --limit 50 --file /tmp/mon4 -- -V ipv6 -f flood"
lab_on 0 "echo 40 > $d/max_server_rpcs && echo 1000 > $d/max_server_rpcs_per_peer"
echo_start 0 712 6 --bpages 2
lab_on 0 "homa_test_limits monitor --file /tmp/mon6"
lab_host "$host flood 6 712 $count $pps"
lab_on 0 "homa_test_limits --port 712 --limit 40 --file /tmp/mon6 -- -V ipv4 -f flood"
echo_stop 0 711
echo_stop 0 712
