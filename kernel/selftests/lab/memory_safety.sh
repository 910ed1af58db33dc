#!/bin/sh
# Memory safety of the buffer pool against an unprivileged user: bpage
# offsets the caller does not hold, huge SO_HOMA_RCVBUF regions, a
# faulting control copy-out (homa_test_safety.c), both families. On the
# debug kernel KASAN catches what the checks miss. One guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 homa_test_safety
lab_on 0 "homa_test_safety --family 6"
