#!/bin/sh
# rate.sh PKTGEN [COUNT] - a `vm/lab run --host` step (guest 0 runs Homa).
#
# KTAP cases for what homa-pktgen does on a live interface, and the note's
# figure: its injection rate into the lab tap against `tcpreplay --topspeed`
# of the same pcap on the same tap, in one run.
#  1-2  -i sends exactly COUNT frames (-r replay of a -w pcap); tcpreplay
#       sends the same COUNT with no failure. The frames go to a MAC no
#       guest owns, so the guest drops them in its NIC driver and the tap
#       is the bottleneck. Three interleaved rounds; the best of each.
#  3    --pps paces: 300 frames at --pps 1000 take at least 0.25 s and
#       report at most 1100 pps.
#  4    -f/--timeout/-C capture the guest's answer: a RESEND to the guest's
#       socket on port 5000 for an RPC it does not know draws an UNKNOWN, and -W
#       writes it to a pcap that tcpdump reads back.
set -eu
PKTGEN=$1
COUNT=${2:-100000}
TAP=${HOMALAB_TAP0:?run me as a vm/lab --host step}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok $1 $2"; }
notok() { echo "not ok $1 $2"; fails=$((fails + 1)); }
# Fields of homa-pktgen's summary "sent N frames in S s: P pps" in FILE.
pg_count() { sed -n 's/.*sent \([0-9]*\) frames in .*/\1/p' "$1"; }
pg_secs() { sed -n 's/.*sent [0-9]* frames in \([0-9.]*\) s: .*/\1/p' "$1"; }
pg_pps() { sed -n 's/.*: \([0-9]*\) pps$/\1/p' "$1"; }

echo "KTAP version 1"
echo "1..4"
"$PKTGEN" --msg-size 100 --eth.dst 02:00:00:00:00:99 -c "$COUNT" -w "$T/rate.pcap" -q
best_pg=0 best_tr=0 pg_sent=0 tr_sent=0 tr_failed=0
for round in 1 2 3; do
	"$PKTGEN" -r "$T/rate.pcap" -i "$TAP" 2> "$T/pg.txt" || true
	sed "s/^/# round $round: /" "$T/pg.txt"
	n=$(pg_count "$T/pg.txt")
	p=$(pg_pps "$T/pg.txt")
	[ "${n:-0}" = "$COUNT" ] && pg_sent=$((pg_sent + 1))
	[ "${p:-0}" -gt "$best_pg" ] && best_pg=$p
	tcpreplay --topspeed -i "$TAP" "$T/rate.pcap" > "$T/tr.txt" 2>&1 || true
	grep -E 'Actual|Rated|Failed' "$T/tr.txt" | sed "s/^/# round $round: tcpreplay: /"
	# "Actual: N packets (...) sent in S seconds", "Rated: B Bps, M Mbps, P pps"
	n=$(sed -n 's/.*Actual: \([0-9]*\) packets.*/\1/p' "$T/tr.txt")
	p=$(sed -n 's/.*Rated: .* \([0-9.]*\) pps.*/\1/p' "$T/tr.txt" | cut -d. -f1)
	f=$(sed -n 's/.*Failed packets: *\([0-9]*\).*/\1/p' "$T/tr.txt")
	[ "${n:-0}" = "$COUNT" ] && tr_sent=$((tr_sent + 1))
	[ "${f:-1}" = 0 ] || tr_failed=$((tr_failed + 1))
	[ "${p:-0}" -gt "$best_tr" ] && best_tr=$p
done
if [ "$pg_sent" = 3 ] && [ "$best_pg" -gt 0 ]; then
	ok 1 "homa-pktgen -r -i sends all $COUNT frames in each of 3 rounds"
else
	notok 1 "homa-pktgen -r -i sends all $COUNT frames in each of 3 rounds ($pg_sent rounds did)"
fi
if [ "$tr_sent" = 3 ] && [ "$tr_failed" = 0 ] && [ "$best_tr" -gt 0 ]; then
	ok 2 "tcpreplay --topspeed sends the same $COUNT frames with no failure"
else
	notok 2 "tcpreplay --topspeed sends the same $COUNT frames ($tr_sent rounds did, $tr_failed had failures)"
fi
if [ "$best_tr" -gt 0 ]; then
	echo "# RATE homa-pktgen ${best_pg} pps, tcpreplay --topspeed ${best_tr} pps," \
		"ratio $(echo "scale=2; $best_pg / $best_tr" | bc) (best of 3 rounds of $COUNT frames of" \
		"$(( $(stat -c %s "$T/rate.pcap") / COUNT - 16 )) bytes on average)"
fi

"$PKTGEN" -r "$T/rate.pcap" -c 300 --pps 1000 -i "$TAP" 2> "$T/pps.txt" || true
sed 's/^/# /' "$T/pps.txt"
s=$(pg_secs "$T/pps.txt")
p=$(pg_pps "$T/pps.txt")
if [ "$(pg_count "$T/pps.txt")" = 300 ] && [ -n "$s" ] && [ "$(echo "$s >= 0.25" | bc)" = 1 ] && [ "${p:-99999}" -le 1100 ]; then
	ok 3 "--pps 1000 paces 300 frames (${s} s, ${p} pps)"
else
	notok 3 "--pps 1000 paces 300 frames (got '${s:-?}' s, '${p:-?}' pps)"
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
[ "$fails" = 0 ]
