#!/bin/sh
# The pacer: output paced to link_mbps, and throttled RPCs sent shortest
# remaining first (homa_test_pacer.c), both families. One guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 homa_test_pacer
lab_on 0 "homa_test_pacer --family 6"
