#!/bin/sh
# One receiver per ready message (homa_test_receivers.c): with four
# threads blocked in recvmsg on a socket, a request (or a response) wakes
# the one thread that takes it, and no other (their voluntary context
# switches do not change); a request does not wake threads that wait for
# responses. Both families, over loopback. One guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 homa_test_receivers
