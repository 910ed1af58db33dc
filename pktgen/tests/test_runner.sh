#!/bin/sh
# test_runner.sh HOMA_SCENARIO SCN_DIR - the scenario runner without a
# guest: bad files and flags give one error line; --write-pcaps writes the
# packets each scenario describes, in order, readable by tcpdump.
set -u
RUN=$1
DIR=$2
PKTGEN=$(dirname "$RUN")/homa-pktgen
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../../lib/tests/tap.sh"

# badfile 'CONTENT' WHAT: the runner refuses it with one FILE:LINE line.
badfile() {
	printf '%s\n' "$1" >"$T/bad.scn"
	env -u HOMALAB_TAP0 "$RUN" --check "$T/bad.scn" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
	   grep -q "bad.scn:[0-9]*: " "$T/err"; then
		ok "$2: $(cat "$T/err")"
	else
		notok "$2: status $rc: $(cat "$T/err")"
	fi
}
badflag() {
	env -u HOMALAB_TAP0 "$RUN" "$@" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" != 0 ] && [ "$(wc -l <"$T/err")" = 1 ]; then
		ok "flags $*: $(cat "$T/err")"
	else
		notok "flags $*: status $rc: $(cat "$T/err")"
	fi
}

echo "TAP version 13"
badfile 'frobnicate 1' "unknown command"
badfile 'send nosuchkey=1' "unknown send key"
badfile 'send sport' "token without ="
badfile 'expect type=DATA wthin=3s' "misspelt expect key"
badfile 'metric drop_short =< 1' "bad metric operator"
badfile 'metric delta drop_short' "metric without value"
badfile 'guest status=0' "guest without command"
badfile 'send msg-data="abc' "unterminated quote"
badfile 'family 5' "bad family"
badfile 'for N 5 1 send truncate=$N' "loop bounds reversed"
badfile 'sleep soon' "bad duration"
badfile 'mark now' "mark with an argument"
badfile 'wait metric drop_short 1' "wait without an operator"
badfile 'wait drop_short == 1' "wait without 'metric'"
badfile 'wait within=soon metric drop_short == 1' "wait with a bad duration"
badfile 'wait within=0ticks metric drop_short == 1' "wait for zero ticks"
badfile 'wait metric drop_short == 1 within=1s within=2s' "wait with two limits"
badfile 'expect-none until=later type=DATA' "expect-none until= other than end"
badfile 'expect until=end type=DATA' "until= on expect"
badflag --port4 0 "$DIR/scenarios"
badflag --bogus "$DIR/scenarios"
badflag
badflag "$T/none.scn"
badflag "$DIR/scenarios/data/rpc_basic.scn"

# No silent skip: a scenario with metric steps and no agent is "not ok"
# with the reason, the run exits 1 (lo stands in for the tap; the check
# comes before any step, so nothing is sent).
printf 'name needs the agent\nfamily 4\nmetric delta drop_short == 0\n' >"$T/agent.scn"
env -u HOMALAB_AGENT0 "$RUN" -i lo "$T/agent.scn" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" = 1 ] && grep -q '^not ok 1 needs the agent (IPv4)$' "$T/out" &&
   grep -q 'HOMALAB_AGENT0 is not set' "$T/out" && ! grep -qi 'skip' "$T/out"; then
	ok "no agent: not ok, naming HOMALAB_AGENT0, exit 1"
else
	notok "no agent: status $rc: $(cat "$T/out" "$T/err")"
fi

# Offline runs need no agent: wait/metric steps (and their $TIMEOUT_TICKS
# style variables, known only from a guest) are not run there.
if env -u HOMALAB_AGENT0 "$RUN" --write-pcaps "$T" "$DIR/scenarios" "$DIR/fuzz" >/dev/null; then
	ok "--write-pcaps ran"
else
	notok "--write-pcaps failed"
fi
count() { tcpdump -nn -r "$1" 2>/dev/null | grep -c 'ip-proto-146'; }
c=$(count "$T/reorder_dup-v4.pcap")
[ "$c" = 7 ] && ok "reorder_dup-v4: 6 segments + ACK" || notok "reorder_dup-v4: $c frames"
c=$(count "$T/malformed_truncated-v6.pcap")
[ "$c" = 259 ] && ok "malformed_truncated-v6: 256 cut + 2-segment RPC + ACK" ||
	notok "malformed_truncated-v6: $c frames"
c=$(count "$T/fuzz_40k-v4.pcap")
[ "$c" = 520 ] && ok "fuzz sample: 500 + RPCs of 3+1 and 15+1 frames" || notok "fuzz_40k-v4: $c frames"
[ ! -e "$T/fuzz_40k-v6.pcap" ] && ok "family 4 only: no v6 pcap" ||
	notok "fuzz_40k has a v6 pcap"
offs=$("$PKTGEN" -r "$T/reorder_dup-v4.pcap" | sed -n 's/.* offset \([0-9]*\) .*/\1/p' | tr '\n' ' ')
[ "$offs" = "3000 1000 1000 0 2000 0 " ] && ok "segments in the scenario's order" ||
	notok "segment order: $offs"
mkdir -p "$T/again"
if "$RUN" --write-pcaps "$T/again" "$DIR/scenarios" "$DIR/fuzz" >/dev/null &&
   cmp -s "$T/fuzz_short-v4.pcap" "$T/again/fuzz_short-v4.pcap"; then
	ok "pcaps reproduce byte for byte (fixed seed and timestamps)"
else
	notok "pcaps differ between runs"
fi
# A folder is searched through its feature subfolders, and the files run
# in file-name order wherever they sit: b.scn (in a/) after a.scn (in z/).
mkdir -p "$T/tree/z" "$T/tree/a" "$T/tree/pcaps"
printf 'name first\nfamily 4\nsend type=ACK id=$ID\n' >"$T/tree/z/a.scn"
printf 'name second\nfamily 4\nsend type=ACK id=$ID\n' >"$T/tree/a/b.scn"
"$RUN" --write-pcaps "$T/tree/pcaps" "$T/tree" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" = 0 ] && [ "$(grep '^ok' "$T/out" | tr '\n' '|')" = "ok 1 first (IPv4)|ok 2 second (IPv4)|" ] &&
   [ -s "$T/tree/pcaps/a-v4.pcap" ] && [ -s "$T/tree/pcaps/b-v4.pcap" ]; then
	ok "subfolders searched, files run in name order"
else
	notok "subfolders: status $rc: $(cat "$T/out" "$T/err"; ls "$T/tree/pcaps")"
fi
tap_done
