# SPDX-License-Identifier: GPL-2.0
# Shared by the host sides of the lab tests (limits_host.sh, rcvmem_host.sh):
# sourced, not run. Needs TAP (guest 0's tap), PKTGEN and FAMILY set.

# guest_metric NAME: guest 0's /proc/net/homa_metrics value (empty if none).
guest_metric() {
	"$HOMALAB_LAB" exec 0 "cat /proc/net/homa_metrics" |
		awk -v n="$1" '$1 == n { print $2 }'
}

# inject_counted PCAP COUNT PPS MODE WHAT: replays PCAP (COUNT DATA frames)
# into the tap at PPS and prints TAP cases 2 ("MODE: WHAT": injected) and 3
# ("MODE: ...": at least 75% of them reached Homa in the guest, by its
# pkts_rcvd_DATA).
inject_counted() {
	before=$(guest_metric pkts_rcvd_DATA)
	start=$(date +%s.%N)
	if "$PKTGEN" -r "$1" -i "$TAP" --pps "$3" > /dev/null; then
		res=ok
	else
		res="not ok"
	fi
	end=$(date +%s.%N)
	sleep 1
	after=$(guest_metric pkts_rcvd_DATA)
	echo "# injected $2 frames in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s; guest pkts_rcvd_DATA $before -> $after"
	echo "$res 2 $4: $5 (IPv$FAMILY)"
	if [ -n "$before" ] && [ -n "$after" ] &&
	   [ $((after - before)) -ge $(($2 * 3 / 4)) ]; then
		echo "ok 3 $4: guest received at least 75% (IPv$FAMILY)"
	else
		echo "not ok 3 $4: guest received at least 75% (IPv$FAMILY)"
	fi
}
