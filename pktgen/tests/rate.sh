#!/bin/sh
# rate.sh PKTGEN [COUNT] - a `vm/lab run --host` step: injection rate of
# homa-pktgen into the lab tap versus `tcpreplay --topspeed` of the same
# pcap on the same tap, in one run. The frames go to a MAC no guest owns,
# so the guest drops them in its NIC driver and the tap is the bottleneck.
set -eu
PKTGEN=$1
COUNT=${2:-100000}
TAP=${HOMALAB_TAP0:?run me as a vm/lab --host step}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$PKTGEN" --msg-size 100 --eth.dst 02:00:00:00:00:99 -c "$COUNT" -w "$T/rate.pcap" -q
for round in 1 2 3; do
	echo "# round $round"
	"$PKTGEN" -r "$T/rate.pcap" -i "$TAP" 2>&1 | sed "s/^/# /"
	tcpreplay --topspeed -i "$TAP" "$T/rate.pcap" 2>&1 |
		grep -E 'Actual|Rated|Failed' | sed 's/^/# tcpreplay: /'
done
