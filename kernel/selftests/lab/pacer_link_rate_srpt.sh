#!/bin/sh
# The pacer: output paced to link_mbps, and throttled RPCs sent shortest
# remaining first (homa_test_pacer.c), both families in one run. One guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 homa_test_pacer
