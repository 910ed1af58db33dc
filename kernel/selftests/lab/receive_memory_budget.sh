#!/bin/sh
# receive_memory_budget.sh PKTGEN PPS SEGS SLACK_KB - receive memory stays
# within its budget. rcvmem_host.sh injects crafted DATA with homa-pktgen;
# the servers are homa_test_rcvmem echo daemons whose receive budget is
# 2 MiB (SO_RCVBUFFORCE 1 MiB, doubled). One guest.
#  - seg1: 40 messages (1024 and 65536 bytes), SEGS one-byte segments
#    each, round robin, at PPS a second: receive memory reaches the budget
#    and stays within it, drops are counted (per message and per socket),
#    the RPCs time out, memory comes back and well-formed RPCs are served;
#  - refuse: a message whose packets are all refused, yet keep coming,
#    times out (refused packets do not reset its silence);
#  - last, the protocol-wide bound: with net.homa.rcvmem_max_kb at 1 MiB a
#    socket whose own budget is 32 MiB still holds no more than 1 MiB.
# SLACK_KB: 0 for the default bounds (memory in use + 4 MB, Slab + 2 MB
# over the budget); the debug kernel's KASAN quarantine and kmemleak
# metadata need more. homa_test_rcvmem's check runs one family's variant
# after that family's flood ("-V ipv6 -f check": the harness's filters
# stop at the first match).
. "$(dirname "$0")/lib.sh"
host="sh $(dirname "$0")/../rcvmem_host.sh ${1:?PKTGEN}"
pps=${2:?PPS}
segs=${3:?SEGS}
slack=${4:?SLACK_KB}
server() { lab_on 0 "homa_test_rcvmem server --family $1 --port $2 --rcvbuf $3 --pidfile /tmp/rcvmem$2.pid"; }
lab_on 0 "homa_test_rcvmem -- -f default_budget"
server 4 721 1048576
server 6 722 1048576
lab_on 0 "homa_test_rcvmem monitor --file /tmp/rmon4"
lab_host "$host seg1 4 721 $segs $pps"
lab_on 0 "homa_test_rcvmem --port 721 --budget 2097152 --slack-kb $slack --file /tmp/rmon4 -- -V ipv6 -f check"
lab_on 0 "homa_test_rcvmem monitor --file /tmp/rmon6"
lab_host "$host seg1 6 722 $segs $pps"
lab_on 0 "homa_test_rcvmem --port 722 --budget 2097152 --slack-kb $slack --file /tmp/rmon6 -- -V ipv4 -f check"
lab_host "$host refuse 4 721 30 $pps"
lab_host "$host refuse 6 722 30 $pps"
lab_on 0 "homa_test_rcvmem stop --pidfile /tmp/rcvmem721.pid"
lab_on 0 "homa_test_rcvmem stop --pidfile /tmp/rcvmem722.pid"
lab_on 0 "echo 1024 > /proc/sys/net/homa/rcvmem_max_kb"
server 4 723 16777216
lab_on 0 "homa_test_rcvmem monitor --file /tmp/rmon4g"
lab_host "$host seg1 4 723 $segs $pps"
lab_on 0 "homa_test_rcvmem --port 723 --budget 1048576 --slack-kb $slack --file /tmp/rmon4g --global -- -V ipv6 -f check"
lab_on 0 "homa_test_rcvmem stop --pidfile /tmp/rcvmem723.pid"
