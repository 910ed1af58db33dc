#!/bin/sh
# stalled_request_pool_recovers.sh PKTGEN - a stalled client cannot keep a
# server's buffer pool: one crafted DATA (limits_host.sh, homa-pktgen on
# the lab host) claims the whole 2-bpage pool of an echo server, then
# silence; a real request must wait, then be served once the bogus RPC
# has timed out (timeout_ticks 2000, so that the request surely arrives
# while the pool is taken). Both families, one guest: the host stalls one
# family's server, then homa_test_limits runs that family's variant only
# ("-V ipv6 -f stall": the harness's filters stop at the first match).
. "$(dirname "$0")/lib.sh"
host="sh $(dirname "$0")/../limits_host.sh ${1:?PKTGEN}"
lab_on 0 "echo 2000 > /proc/sys/net/homa/timeout_ticks"
echo_start 0 701 4 --bpages 2
echo_start 0 702 6 --bpages 2
lab_host "$host stall 4 701 2"
lab_on 0 "homa_test_limits --port 701 -- -V ipv6 -f stall"
lab_host "$host stall 6 702 2"
lab_on 0 "homa_test_limits --port 702 -- -V ipv4 -f stall"
echo_stop 0 701
echo_stop 0 702
