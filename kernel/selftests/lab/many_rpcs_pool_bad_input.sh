#!/bin/sh
# Many outstanding RPCs (homa_test_many.c), the receive buffer pool
# (homa_test_pool.c) and bad input to every call (homa_test_badinput.c).
# Each program runs every test over IPv4 and IPv6 (harness variants).
# One guest.
. "$(dirname "$0")/lib.sh"
for prog in homa_test_many homa_test_pool homa_test_badinput; do
	lab_on 0 "$prog"
done
