#!/bin/sh
# The KUnit suite of the receive buffer pool (kernel/homa_pool_test.c):
# the debug kernel has KUnit, so its homa.ko has the suite built in
# (CONFIG_HOMA_KUNIT_TEST), which ran when the module loaded at boot;
# kunit_results.sh prints the suite's results from the kernel log as its
# cases. One guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 "kunit_results.sh homa_pool"
