#!/bin/sh
# Network namespaces: each has its own net.homa sysctls (the defaults, not
# the initial namespace's values; the module-wide ones only in the initial
# namespace) and its own /proc/net/homa_metrics (timer_runs, timer_ns and
# rcvmem_bytes are the module's); its settings govern its own sockets only
# (max_server_rpcs 1 in a child drops there, not in the initial
# namespace); a namespace made after another died starts with no peers; in
# a namespace of a user namespace the limits are read-only
# (homa_test_netns.c; all_programs_debug runs the rest with KASAN, lockdep
# and kmemleak, --no-userns there). Both families in one run, one guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 homa_test_netns
