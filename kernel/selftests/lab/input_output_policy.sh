#!/bin/sh
# What every net/ transport checks between IP and its sockets, and whose
# packets Homa sends (homa_test_policy.c): socket filters, random client
# ids, SO_BROADCAST, ICMP errors checked against live RPCs and soft errors,
# the peers' route cache and the path MTU (also in all_programs_debug),
# cgroup egress BPF seeing Homa's packets and IPsec policies (--only
# egress, --only xfrm: the debug kernel has no cgroups, BPF or xfrm_user).
# Both families, one guest.
. "$(dirname "$0")/lib.sh"
for only in "" "--only egress" "--only xfrm"; do
	lab_on 0 "homa_test_policy $only"
	lab_on 0 "homa_test_policy $only --family 6"
done
