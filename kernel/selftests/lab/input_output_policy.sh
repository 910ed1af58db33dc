#!/bin/sh
# What every net/ transport checks between IP and its sockets, and whose
# packets Homa sends (homa_test_policy.c): socket filters, random client
# ids, SO_BROADCAST, ICMP errors checked against live RPCs and soft errors,
# the peers' route cache and the path MTU (also in all_programs_debug),
# cgroup egress BPF seeing Homa's packets and IPsec policies (the fixtures
# egress and xfrm, each a run of its own: the debug kernel has no cgroups,
# BPF or xfrm_user, so it runs the program with -- -F egress -F xfrm).
# Which socket takes a packet (homa_test_delivery.c): only one of the
# packet's own IP version, and requests only a server socket (bound); a
# client's pool cannot be filled with requests it never reads.
# Each run covers both families (the variants ipv4 and ipv6). One guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 "homa_test_policy -- -F egress -F xfrm"
lab_on 0 "homa_test_policy -- -f egress"
lab_on 0 "homa_test_policy -- -f xfrm"
lab_on 0 homa_test_delivery
