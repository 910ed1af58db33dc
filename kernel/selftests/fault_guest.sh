#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest-side helpers of the fault tests (copied to /opt/homa by the lab;
# lab/lib.sh's lab_bg and lab_wait run a command in the background).
#   fault_guest.sh sink             start a sink on port 700 (background)
#   fault_guest.sh sink-kill        kill it
#   fault_guest.sh ready            wait until /tmp/vanish.ready exists
#   fault_guest.sh sysctl           small segments (one packet per skb),
#                                   long timeouts, for the lossy runs
#   fault_guest.sh icmp-ratelimit off|default
#                                   the ICMP error rate limits of IPv4 and
#                                   IPv6, per host and global (off: none, so
#                                   every packet to a port without a socket
#                                   gets its ICMP; default: the kernel's);
#                                   prints how many errors they held back
case "$1" in
sink)
	# The sink holds thousands of requests from one client (guest 0),
	# and the echo server beside it queues as many: let one client have
	# that many server RPCs here (the default limit per client is 512).
	echo 100000 > /proc/sys/net/homa/max_server_rpcs_per_peer
	rm -f /tmp/sink.pid
	homa_test_peer_failure sink --port 700 --pidfile /tmp/sink.pid > /dev/null 2>&1 &
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
	# The per-host limit (icmp_ratelimit) is not the only one: a global
	# token bucket (icmp_msgs_per_sec, icmp_msgs_burst: 50) serves both
	# families, and a slow guest whose clients resend can empty it.
	case "$2" in
	off) ms=0 rate=1000000 burst=1000000 ;;
	default) ms=1000 rate=1000 burst=50 ;;
	*) echo "$0: icmp-ratelimit: off or default, not '$2'" >&2; exit 2 ;;
	esac
	held=$(awk '/^Icmp:/ && !h { for (i = 1; i <= NF; i++) n[i] = $i; h = 1; next }
		/^Icmp:/ { for (i = 1; i <= NF; i++) if (n[i] ~ /^OutRateLimit/) printf "%s %s ", n[i], $i }' /proc/net/snmp)
	held6=$(awk '$1 ~ /^Icmp6OutRateLimit/ { printf "%s %s ", $1, $2 }' /proc/net/snmp6)
	echo "# ICMP errors held back by rate limits so far: $held$held6"
	echo "$ms" > /proc/sys/net/ipv4/icmp_ratelimit &&
	echo "$ms" > /proc/sys/net/ipv6/icmp/ratelimit &&
	echo "$rate" > /proc/sys/net/ipv4/icmp_msgs_per_sec &&
	echo "$burst" > /proc/sys/net/ipv4/icmp_msgs_burst
	;;
*)
	echo "usage: $0 bg|wait|sink|sink-kill|ready|sysctl|icmp-ratelimit off|default" >&2
	exit 2
	;;
esac
