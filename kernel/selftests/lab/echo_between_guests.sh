#!/bin/sh
# Echo RPCs of every size from guest 0 to guest 1, IPv4 and IPv6, byte
# for byte. Two guests.
. "$(dirname "$0")/lib.sh"
echo_start 1 500 4
echo_start 1 600 6
lab_on 0 "homa_test_echo --server $HOMALAB_G1_IP4 --port 500"
lab_on 0 "homa_test_echo --server $HOMALAB_G1_IP6 --port 600"
echo_stop 1 500
echo_stop 1 600
