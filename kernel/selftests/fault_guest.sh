#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest-side helpers of the fault tests (copied to /opt/homa by the lab).
#   fault_guest.sh bg NAME CMD...   run CMD in the background, output to
#                                   /tmp/NAME.log, status to /tmp/NAME.rc
#   fault_guest.sh wait NAME        wait for it, print its output, exit
#                                   with its status
#   fault_guest.sh sink             start a sink on port 700 (background)
#   fault_guest.sh sink-kill        kill it
#   fault_guest.sh ready            wait until /tmp/vanish.ready exists
#   fault_guest.sh sysctl           small segments (one packet per skb),
#                                   long timeouts, for the lossy runs
#   fault_guest.sh icmp-ratelimit MS  the ICMP error rate limits of IPv4
#                                   and IPv6 (0: none, so every packet to a
#                                   port without a socket gets its ICMP;
#                                   1000: the kernel's default)
case "$1" in
bg)
	name=$2
	shift 2
	rm -f "/tmp/$name.rc" "/tmp/$name.log"
	( "$@" > "/tmp/$name.log" 2>&1; echo $? > "/tmp/$name.rc" ) > /dev/null 2>&1 &
	;;
wait)
	while [ ! -f "/tmp/$2.rc" ]; do sleep 1; done
	cat "/tmp/$2.log"
	exit "$(cat "/tmp/$2.rc")"
	;;
sink)
	# The sink holds thousands of requests from one client (guest 0),
	# and the echo server beside it queues as many: let one client have
	# that many server RPCs here (the default limit per client is 512).
	echo 100000 > /proc/sys/net/homa/max_server_rpcs_per_peer
	rm -f /tmp/sink.pid
	homa_test_faults sink --port 700 --pidfile /tmp/sink.pid > /dev/null 2>&1 &
	while [ ! -s /tmp/sink.pid ]; do sleep 0.1; done
	;;
sink-kill)
	kill -9 "$(cat /tmp/sink.pid)"
	while kill -0 "$(cat /tmp/sink.pid)" 2> /dev/null; do sleep 0.1; done
	;;
ready)
	while [ ! -f /tmp/vanish.ready ]; do sleep 0.2; done
	;;
sysctl)
	echo 1100 > /proc/sys/net/homa/max_gso_size &&
	echo 1000 > /proc/sys/net/homa/timeout_ticks
	;;
icmp-ratelimit)
	echo "$2" > /proc/sys/net/ipv4/icmp_ratelimit &&
	echo "$2" > /proc/sys/net/ipv6/icmp/ratelimit
	;;
*)
	echo "usage: $0 bg|wait|sink|sink-kill|ready|sysctl|icmp-ratelimit MS" >&2
	exit 2
	;;
esac
