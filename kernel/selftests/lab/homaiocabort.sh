#!/bin/sh
# HOMAIOCABORT (homa_test_abort.c): aborting one RPC or all of a socket's
# client RPCs, with an error or freeing them, the waiters it wakes and the
# arguments it refuses. Both families (harness variants ipv4 and ipv6) in
# one run, one guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 homa_test_abort
