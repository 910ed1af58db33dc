#!/bin/sh
# Both GSO paths, each seen in its metric (homa_test_gso.c): over loopback
# multi-segment skbs arrive whole and are split on receive; to another
# guest (virtio without offload) they are segmented in software on
# transmit; with max_gso_size at its minimum neither path runs. IPv4 and
# IPv6 in one run. Then, through the same echo servers, the devices'
# transmit completions clocking the pacer, and its FIFO share
# (homa_test_txqueue.c). Two guests: guest 1 serves the remote echoes.
. "$(dirname "$0")/lib.sh"
echo_start 1 500 4
echo_start 1 600 6
lab_on 0 "homa_test_gso --port4 500 --port6 600"
lab_on 0 "homa_test_txqueue --port4 500 --port6 600"
echo_stop 1 500
echo_stop 1 600
