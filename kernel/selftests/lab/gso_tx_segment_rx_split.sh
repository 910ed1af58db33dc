#!/bin/sh
# Both GSO paths, each seen in its metric (homa_test_gso.c): over loopback
# multi-segment skbs arrive whole and are split on receive; to another
# guest (virtio without offload) they are segmented in software on
# transmit; with max_gso_size at its minimum neither path runs. Two guests.
. "$(dirname "$0")/lib.sh"
echo_start 1 500 4
echo_start 1 600 6
lab_on 0 "homa_test_gso loopback"
lab_on 0 "homa_test_gso loopback --family 6"
lab_on 0 "homa_test_gso remote --server $HOMALAB_G1_IP4 --port 500"
lab_on 0 "homa_test_gso remote --server $HOMALAB_G1_IP6 --port 600"
echo_stop 1 500
echo_stop 1 600
