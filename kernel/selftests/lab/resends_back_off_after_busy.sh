#!/bin/sh
# resends_back_off_after_busy.sh PLUGIN PCAP - RESENDs back off after BUSY,
# seen on the wire: the lab captures guest 0's NIC (the run's --pcap-dir)
# while 8 requests per family wait on a slow server (guest 1, one answer
# every 40 ms), and dissector/tests/backoff.sh decodes PCAP with our
# plugin: at least 6 RPCs per family asked more than four times, later
# gaps between an RPC's RESENDs at least twice its shortest first gap, and
# BUSY answering each. Few RPCs, so that resend_peer_limit defers none and
# the first gaps are the RESEND interval itself. Measured: later gaps
# 2.8-6.0x the shortest first gap (~30 ms against 5-11 ms), 8-9 RESENDs
# per RPC; with the back-off off (its cap made resend_interval:
# timeout_ticks 15 on the client) they are 0.90x (5.3 against 5.8 ms),
# 36.5 RESENDs per RPC, and the check fails.
. "$(dirname "$0")/lib.sh"
plugin=${1:?PLUGIN}
pcap=${2:?PCAP}
echo_start 1 520 4 --delay-ms 40
echo_start 1 620 6 --delay-ms 40
lab_on 0 "homa_test_overload --server $HOMALAB_G1_IP4 --port 520 --rpcs 8 --max-resends 50"
lab_on 0 "homa_test_overload --server $HOMALAB_G1_IP6 --port 620 --rpcs 8 --max-resends 50"
lab_host "bash $(dirname "$0")/../../../dissector/tests/backoff.sh $plugin $pcap 6"
echo_stop 1 520
echo_stop 1 620
