#!/bin/sh
# test_cli.sh PKTGEN - homa-pktgen's flags: every bad flag, value or input
# file gives exactly one error line and exit status 2 (bad usage), a
# failure at run time (cannot write the pcap, no such interface) exactly
# one line and status 1, as README.md and --help document; good runs
# write pcaps that tcpdump reads with correct IPv4 checksums; -r/-w round
# trips bytes.
set -u
PKTGEN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../../lib/tests/tap.sh"


# status WANT ARGS...: exit status exactly WANT, one stderr line starting
# with "homa-pktgen: ".
status() {
	want=$1
	shift
	"$PKTGEN" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	lines=$(wc -l <"$T/err")
	if [ "$rc" = "$want" ] && [ "$lines" = 1 ] && grep -q '^homa-pktgen: ' "$T/err"; then
		ok "status $want: $* -> $(cat "$T/err")"
	else
		notok "status $want: $* -> status $rc, $lines lines: $(cat "$T/err")"
	fi
}
# bad ARGS...: bad usage (a flag, a value, an input file): status 2.
bad() { status 2 "$@"; }
# badrun ARGS...: valid usage that fails at run time: status 1.
badrun() { status 1 "$@"; }

echo "TAP version 13"
bad --bogus 1
bad -x
bad -c
bad -c 0
bad -c abc
bad -l 0
bad --pps 0
bad --pps -5
bad --id-step x
bad --id-step -1
bad --reply 2
bad --gso 1 --type ACK
bad --icmp echo
bad --timeout 5parsecs
bad --sport 65536
bad --sport -1
bad --dport ''
bad --id 0x1ffffffffffffffff
bad --type NOPE
bad --type 256
bad --family 5
bad --length 5
bad --num_acks 2
bad -6 --ip.ttl 3
bad --ip.src 300.1.1.1
bad --ip6.src nothex::zz
bad --eth.src 02:00:00:00:00
bad --smac zz:00:00:00:00:00
bad --msg-size 1x
bad --seg-size 0
bad --order 9
bad --msg-size 3000 --seg-size 1000 --order 0,1,
bad --truncate 157
bad --type BUSY --truncate 29
bad --truncate-frame 100000
bad --poke 99:1
bad --poke 1
bad --poke 1:300
bad -r /nonexistent.pcap
bad -r "$T/x.pcap" --sport 1
bad -f 'ip proto 146'
bad --timeout 10
badrun -w /nonexistent-dir/x.pcap
badrun -i homa-no-such-if0

# Good runs.
if "$PKTGEN" --msg-size 3000 --seg-size 1000 --order 2,0,1,1 -w "$T/a.pcap" -q &&
   tcpdump -nn -vv -r "$T/a.pcap" >"$T/td" 2>/dev/null &&
   [ "$(grep -c 'ip-proto-146' "$T/td")" = 4 ] && ! grep -q 'bad cksum' "$T/td"; then
	ok "tcpdump reads 4 DATA frames, IPv4 checksums good"
else
	notok "tcpdump reading the pcap: $(head -3 "$T/td")"
fi
if "$PKTGEN" -r "$T/a.pcap" -w "$T/b.pcap" -q && cmp -s "$T/a.pcap" "$T/b.pcap"; then
	ok "-r then -w keeps every byte"
else
	notok "-r/-w round trip differs"
fi
if "$PKTGEN" -6 --type ACK --num_acks 6 -w "$T/c.pcap" -q &&
   tcpdump -nn -r "$T/c.pcap" 2>/dev/null | grep -q '2001:db8::100 > 2001:db8::11'; then
	ok "IPv6 ACK readable by tcpdump"
else
	notok "IPv6 ACK pcap"
fi
out=$("$PKTGEN" -c 5 --type RESEND --offset 7 --length 9)
if [ "$(echo "$out" | grep -c 'RESEND 40000 > 5000 id 2 offset 7 length 9')" = 5 ]; then
	ok "-c 5 prints 5 RESENDs with their fields"
else
	notok "-c 5 print: $out"
fi
"$PKTGEN" --help >"$T/help"
if grep -q '^Exit status: 0 ok, 1 failure at run time' "$T/help" && grep -q ', 2 bad usage' "$T/help"; then
	ok "--help documents the exit statuses"
else
	notok "--help does not document the exit statuses"
fi
if "$PKTGEN" --list-fields | grep -q '^num_acks'; then
	ok "--list-fields lists num_acks"
else
	notok "--list-fields"
fi
tap_done
