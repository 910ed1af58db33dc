#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host side of echo_through_tso_offload_distro, run by
# lab/echo_through_tso_offload.sh after traffic between the guests (the
# lab runs with --offload); prints TAP. With --offload the
# guests' virtio NICs have checksum offload and TSO, so multi-segment DATA
# skbs reach the device whole and the host's tap takes them with their
# virtio header (checksum to complete at TCP's offset). Before, Homa marked
# such skbs CHECKSUM_UNNECESSARY and none reached the host: the average
# frame was 1,427 bytes (4,108,190 in 2,878), every multi-segment skb was
# lost and recovered by RESEND; TSO needs CHECKSUM_PARTIAL.
#
# (The bridge cannot forward those frames to the other guest: the host
# kernel has no Homa, so it cannot segment them for a tap; the guests
# recover them by RESEND. A NIC that does TSO has no such limit.)
#
#   offload_host.sh GUESTS
set -u
GUESTS=${1:?usage: offload_host.sh GUESTS}
: "${HOMALAB_NETNS:?run me as a vm/lab --host step}"
echo "1..$((GUESTS * 2))"
n=0
i=0
while [ "$i" -lt "$GUESTS" ]; do
	tap=$(printenv "HOMALAB_TAP$i")
	stat() {
		ip netns exec "$HOMALAB_NETNS" cat "/sys/class/net/$tap/statistics/$1"
	}
	errs=$(stat rx_frame_errors)
	bytes=$(stat rx_bytes)
	pkts=$(stat rx_packets)
	echo "# $tap: received $pkts frames, $bytes bytes, $errs refused (rx_frame_errors)"
	n=$((n + 1))
	if [ "$pkts" -gt 0 ] && [ "$errs" -eq 0 ]; then
		echo "ok $n g$i: the host took every frame its NIC sent"
	else
		echo "not ok $n g$i: the host refused $errs of the frames its NIC sent"
	fi
	# Frames of up to 1514 bytes cannot average more: some were TSO.
	n=$((n + 1))
	if [ "$pkts" -gt 0 ] && [ "$bytes" -gt $((pkts * 1514)) ]; then
		echo "ok $n g$i: multi-segment DATA reached the NIC whole (TSO)"
	else
		echo "not ok $n g$i: no TSO frames (average frame within 1514 bytes)"
	fi
	i=$((i + 1))
done
