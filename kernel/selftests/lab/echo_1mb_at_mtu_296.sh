#!/bin/sh
# Echoes up to 1 MB between two guests whose MTU is 296 (220-byte
# segments: 4546 packets for 1 MB). With the old cap of 4096 packets per
# message the 1 MB echo never completed nor timed out (1.27 million
# packets dropped and retransmitted in 30 s).
. "$(dirname "$0")/lib.sh"
lab_on 0 "/sbin/ip link set eth0 mtu 296"
lab_on 1 "/sbin/ip link set eth0 mtu 296"
echo_start 1 500 4
lab_on 0 "homa_test_echo --server $HOMALAB_G1_IP4 --port 500"
echo_stop 1 500
