#!/bin/sh
# memory_safety.sh [--kunit] - memory safety of the receive buffer pool.
# Against an unprivileged user (homa_test_safety.c): bpage offsets the
# caller does not hold, huge SO_HOMA_RCVBUF regions, a faulting control
# copy-out, both families in one run (the variants ipv4 and ipv6); on the
# debug kernel KASAN catches what the checks miss. With --kunit (the debug
# kernel, which has KUnit) first the pool allocator's KUnit suite
# (kernel/homa_pool_test.c): homa.ko has it built in there
# (CONFIG_HOMA_KUNIT_TEST) and ran it when it loaded at boot;
# kunit_results.sh prints its results from the kernel log as cases.
# Without it (the distro kernel, about 24 times faster than debug, where
# the fuzzer makes far more calls: 290,000 in 40 s), also the unprivileged
# syscall fuzzer of all_programs_debug (homa_test_fuzz.c) for 20 s: at that
# pace it hung the root victim, whose pool the fuzzer's requests filled
# (a socket with an automatic port now takes no requests). Some of its
# requests go to the other guest: on the distro kernel two guests, one
# on the debug kernel.
. "$(dirname "$0")/lib.sh"
[ "${1:-}" = --kunit ] && lab_on 0 "kunit_results.sh homa_pool"
lab_on 0 homa_test_safety
[ "${1:-}" = --kunit ] || lab_on 0 "homa_test_fuzz --seconds 20"
