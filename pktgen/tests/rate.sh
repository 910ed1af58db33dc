#!/bin/sh
# rate.sh PKTGEN [COUNT] - a `vm/lab run --host` step (guest 0 runs Homa).
#
# KTAP cases for what homa-pktgen does on a live interface. Frame counts
# and rates come from the tap's own counters
# (/sys/class/net/$TAP/statistics: tx_packets are frames the guest's QEMU
# read, tx_dropped frames the tap dropped because QEMU was behind) and our
# own clock, never from a tool's summary.
#  1-2  -i hands the tap exactly COUNT frames (-r replay of a -w pcap);
#       so does tcpreplay --topspeed with the same pcap. The frames go to a
#       MAC no guest owns, so the guest drops them in its NIC driver and
#       the tap is the bottleneck. Three interleaved rounds.
#  3    --pps paces: 300 frames at --pps 1000 reach the tap in at least
#       0.25 s, at most 1100 frames/s.
#  4    -f/--timeout/-C capture the guest's answer: a RESEND to the guest's
#       socket on port 5000 for an RPC it does not know draws an UNKNOWN, and -W
#       writes it to a pcap that tcpdump reads back.
#  5    homa-pktgen's best rate into the tap is at least a third of
#       tcpreplay --topspeed's: a loose bound that catches a sender gone
#       slow, not a figure. Measured 0.75 with 100,000 frames on a 2-core
#       host; 0.14 before lists stored frames at their length (each -r frame
#       took a 9 KiB copy: 900 MB and 1.2 s of page faults before the first
#       send). The ratio itself is printed as "# measured".
set -eu
PKTGEN=$1
COUNT=${2:-100000}
TAP=${HOMALAB_TAP0:?run me as a vm/lab --host step}
STATS=/sys/class/net/$TAP/statistics
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok $1 $2"; }
notok() { echo "not ok $1 $2"; fails=$((fails + 1)); }
# Frames the host side offered to the tap so far: read by QEMU or dropped.
tap_frames() { echo $(( $(cat "$STATS/tx_packets") + $(cat "$STATS/tx_dropped") )); }
now_ns() { date +%s%N; }
# Other frames the host puts on the tap (the bridge's IPv6 ND/MLD) in one
# measurement at most.
SLACK=50
# measure NAME CMD...: run CMD; set n (frames the tap got), dropped (of
# them, dropped by the tap), ns (wall time) and pps.
measure() {
	name=$1
	shift
	d0=$(cat "$STATS/tx_dropped")
	f0=$(tap_frames)
	t0=$(now_ns)
	"$@" > "$T/out.txt" 2>&1 || echo "$name: exit status $?" >> "$T/out.txt"
	t1=$(now_ns)
	n=$(( $(tap_frames) - f0 ))
	dropped=$(( $(cat "$STATS/tx_dropped") - d0 ))
	ns=$((t1 - t0))
	pps=$(( n * 1000000000 / (ns > 0 ? ns : 1) ))
	echo "# $name: tap got $n frames ($dropped dropped by the tap) in $((ns / 1000000)) ms: $pps frames/s"
	sed "s/^/#   $name: /" "$T/out.txt"
}
# exact N: the tap got N frames, give or take the SLACK of its own.
exact() { [ "$n" -ge "$1" ] && [ "$n" -le $(($1 + SLACK)) ]; }

echo "KTAP version 1"
echo "1..5"
"$PKTGEN" --msg-size 100 --eth.dst 02:00:00:00:00:99 -c "$COUNT" -w "$T/rate.pcap" -q
best_pg=0 best_tr=0 pg_sent=0 tr_sent=0
for round in 1 2 3; do
	measure "round $round: homa-pktgen -r -i" "$PKTGEN" -r "$T/rate.pcap" -i "$TAP"
	exact "$COUNT" && pg_sent=$((pg_sent + 1))
	[ "$pps" -gt "$best_pg" ] && best_pg=$pps
	measure "round $round: tcpreplay --topspeed" tcpreplay --topspeed -i "$TAP" "$T/rate.pcap"
	exact "$COUNT" && tr_sent=$((tr_sent + 1))
	[ "$pps" -gt "$best_tr" ] && best_tr=$pps
done
if [ "$pg_sent" = 3 ]; then
	ok 1 "homa-pktgen -r -i: the tap got all $COUNT frames in each of 3 rounds"
else
	notok 1 "homa-pktgen -r -i: the tap got all $COUNT frames in only $pg_sent of 3 rounds"
fi
if [ "$tr_sent" = 3 ]; then
	ok 2 "tcpreplay --topspeed: the tap got the same $COUNT frames in each of 3 rounds"
else
	notok 2 "tcpreplay --topspeed: the tap got all $COUNT frames in only $tr_sent of 3 rounds"
fi

measure "--pps 1000" "$PKTGEN" -r "$T/rate.pcap" -c 300 --pps 1000 -i "$TAP"
if exact 300 && [ "$ns" -ge 250000000 ] && [ "$pps" -le 1100 ]; then
	ok 3 "--pps 1000 paces 300 frames ($((ns / 1000000)) ms, $pps frames/s at the tap)"
else
	notok 3 "--pps 1000 paces 300 frames (tap got $n frames in $((ns / 1000000)) ms, $pps frames/s)"
fi

# The lab's default addresses are those of guest 0 and the tap's peer.
if "$PKTGEN" -i "$TAP" --type RESEND --id 1000 --dport 5000 --offset 0 --length 100 \
	-f "ip proto 146" --timeout 3000 -C 1 -W "$T/answer.pcap" > "$T/cap.txt" 2>&1 &&
	grep -q '^< .*UNKNOWN' "$T/cap.txt" &&
	tcpdump -n -r "$T/answer.pcap" 2> /dev/null | grep -q 'ip-proto-146'; then
	ok 4 "a RESEND for an unknown RPC is answered with UNKNOWN, captured by -f/-C/-W"
else
	sed 's/^/# /' "$T/cap.txt"
	notok 4 "a RESEND for an unknown RPC is answered with UNKNOWN, captured by -f/-C/-W"
fi
echo "# measured: homa-pktgen ${best_pg} frames/s, tcpreplay --topspeed ${best_tr} frames/s" \
	"into the tap, ratio $([ "$best_tr" -gt 0 ] && echo "scale=2; $best_pg / $best_tr" | bc || echo n/a)" \
	"(best of 3 rounds of $COUNT frames of $(( $(stat -c %s "$T/rate.pcap") / COUNT - 16 )) bytes" \
	"on average; tap counters and wall clock, not the tools' summaries)"
if [ "$best_tr" -gt 0 ] && [ $((3 * best_pg)) -ge "$best_tr" ]; then
	ok 5 "homa-pktgen reaches at least a third of tcpreplay --topspeed's rate into the tap"
else
	notok 5 "homa-pktgen reaches at least a third of tcpreplay --topspeed's rate into the tap ($best_pg vs $best_tr frames/s)"
fi
[ "$fails" = 0 ]
