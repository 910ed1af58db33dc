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
#       the tap is the bottleneck. Five interleaved rounds (ROUNDS).
#  3    --pps paces: 300 frames at --pps 1000 reach the tap in at least
#       0.25 s, at most 1100 frames/s.
#  4    -f/--timeout/-C capture the guest's answer: a RESEND to the guest's
#       socket on port 5000 for an RPC it does not know draws an UNKNOWN, and -W
#       writes it to a pcap that tcpdump reads back.
#  5    homa-pktgen's best rate into the tap is at least tcpreplay
#       --topspeed's. It fills a TPACKET_V2 transmit ring and hands it
#       over with one send() per 128 frames, where tcpreplay (and
#       pcap_inject, which we used before) make a syscall per frame.
#       Measured ~0.94x with pcap_inject; the ratio is printed as
#       "# measured".
#  6    --qdisc-bypass (frames straight to the driver) delivers every
#       frame to the guest's QEMU (tx_packets = COUNT) in each round: the
#       driver refuses a frame when the tap is full (counted in tx_dropped)
#       and the next send() offers that frame again.
#  7    Without --qdisc-bypass a capture on the tap sees what we inject
#       (the reason it is the default): tcpdump -Q out counts 200 of 200.
#  8    A frame the kernel refuses (4,090 bytes on a 1,500-byte MTU, second
#       of three) is named in a one-line error with exit status 1; the
#       frame before it reached the tap, none after it did.
set -eu
PKTGEN=$1
COUNT=${2:-100000}
ROUNDS=5
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
# them, dropped by the tap), delivered (read by QEMU), ns (wall time) and
# pps.
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
	delivered=$((n - dropped))
	ns=$((t1 - t0))
	pps=$(( n * 1000000000 / (ns > 0 ? ns : 1) ))
	echo "# $name: tap got $n frames ($dropped dropped by the tap, $delivered delivered) in $((ns / 1000000)) ms: $pps frames/s"
	sed "s/^/#   $name: /" "$T/out.txt"
}
# exact N: the tap got N frames, give or take the SLACK of its own.
exact() { [ "$n" -ge "$1" ] && [ "$n" -le $(($1 + SLACK)) ]; }

echo "KTAP version 1"
echo "1..8"
"$PKTGEN" --msg-size 100 --eth.dst 02:00:00:00:00:99 -c "$COUNT" -w "$T/rate.pcap" -q
best_pg=0 best_tr=0 best_by=0 pg_sent=0 tr_sent=0 by_sent=0
for round in $(seq "$ROUNDS"); do
	measure "round $round: homa-pktgen -r -i" "$PKTGEN" -r "$T/rate.pcap" -i "$TAP"
	exact "$COUNT" && pg_sent=$((pg_sent + 1))
	[ "$pps" -gt "$best_pg" ] && best_pg=$pps
	measure "round $round: homa-pktgen --qdisc-bypass" "$PKTGEN" --qdisc-bypass -r "$T/rate.pcap" -i "$TAP"
	[ "$delivered" -ge "$COUNT" ] && [ "$delivered" -le $((COUNT + SLACK)) ] &&
		by_sent=$((by_sent + 1))
	[ "$pps" -gt "$best_by" ] && best_by=$pps
	measure "round $round: tcpreplay --topspeed" tcpreplay --topspeed -i "$TAP" "$T/rate.pcap"
	exact "$COUNT" && tr_sent=$((tr_sent + 1))
	[ "$pps" -gt "$best_tr" ] && best_tr=$pps
done
if [ "$pg_sent" = "$ROUNDS" ]; then
	ok 1 "homa-pktgen -r -i: the tap got all $COUNT frames in each of $ROUNDS rounds"
else
	notok 1 "homa-pktgen -r -i: the tap got all $COUNT frames in only $pg_sent of $ROUNDS rounds"
fi
if [ "$tr_sent" = "$ROUNDS" ]; then
	ok 2 "tcpreplay --topspeed: the tap got the same $COUNT frames in each of $ROUNDS rounds"
else
	notok 2 "tcpreplay --topspeed: the tap got all $COUNT frames in only $tr_sent of $ROUNDS rounds"
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
echo "# measured: homa-pktgen ${best_pg} frames/s (--qdisc-bypass ${best_by})," \
	"tcpreplay --topspeed ${best_tr} frames/s" \
	"into the tap, ratio $([ "$best_tr" -gt 0 ] && echo "scale=2; $best_pg / $best_tr" | bc || echo n/a)" \
	"(best of $ROUNDS rounds of $COUNT frames of $(( $(stat -c %s "$T/rate.pcap") / COUNT - 16 )) bytes" \
	"on average; tap counters and wall clock, not the tools' summaries)"
if [ "$best_tr" -gt 0 ] && [ "$best_pg" -ge "$best_tr" ]; then
	ok 5 "homa-pktgen injects at least as fast as tcpreplay --topspeed into the tap"
else
	notok 5 "homa-pktgen injects at least as fast as tcpreplay --topspeed into the tap ($best_pg vs $best_tr frames/s)"
fi
if [ "$by_sent" = "$ROUNDS" ]; then
	ok 6 "homa-pktgen --qdisc-bypass: the guest's QEMU read all $COUNT frames in each of $ROUNDS rounds"
else
	notok 6 "homa-pktgen --qdisc-bypass: the guest's QEMU read all $COUNT frames in only $by_sent of $ROUNDS rounds"
fi
tcpdump -i "$TAP" -Q out -nn -c 200 -w "$T/seen.pcap" 'ether dst 02:00:00:00:00:99' > "$T/td.txt" 2>&1 &
td=$!
# tcpdump is listening once it says so.
for _ in $(seq 50); do grep -q 'listening on' "$T/td.txt" && break; sleep 0.1; done
"$PKTGEN" -r "$T/rate.pcap" -c 200 -i "$TAP" -q
for _ in $(seq 50); do kill -0 "$td" 2> /dev/null || break; sleep 0.1; done
kill "$td" 2> /dev/null || true
wait "$td" 2> /dev/null || true
seen=$(tcpdump -r "$T/seen.pcap" 2> /dev/null | wc -l)
if [ "$seen" = 200 ]; then
	ok 7 "a capture on the tap sees the 200 frames homa-pktgen injects"
else
	sed 's/^/# tcpdump: /' "$T/td.txt"
	notok 7 "a capture on the tap sees the 200 frames homa-pktgen injects (saw $seen)"
fi

"$PKTGEN" --msg-size 100 -w "$T/small.pcap" -q
"$PKTGEN" --msg-size 4000 --seg-size 4000 -w "$T/big.pcap" -q
mergecap -a -w "$T/mixed.pcap" "$T/small.pcap" "$T/big.pcap" "$T/small.pcap"
measure "a 4,090-byte frame between two small ones" "$PKTGEN" -r "$T/mixed.pcap" -i "$TAP" -q
if grep -qx "homa-pktgen: frame 2: inject: Message too long" "$T/out.txt" &&
	grep -q "exit status 1" "$T/out.txt" && exact 1; then
	ok 8 "a frame the kernel refuses is named (frame 2, EMSGSIZE), exit 1; only the frame before it was sent"
else
	notok 8 "a frame the kernel refuses is named (frame 2, EMSGSIZE), exit 1; only the frame before it was sent (tap got $n)"
fi
[ "$fails" = 0 ]
