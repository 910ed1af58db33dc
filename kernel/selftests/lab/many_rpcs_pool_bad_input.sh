#!/bin/sh
# Many outstanding RPCs (homa_test_many.c), the receive buffer pool
# (homa_test_pool.c) and bad input to every call (homa_test_badinput.c),
# both families. One guest.
. "$(dirname "$0")/lib.sh"
for prog in homa_test_many homa_test_pool homa_test_badinput; do
	lab_on 0 "$prog"
	lab_on 0 "$prog --family 6"
done
