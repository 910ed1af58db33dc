#!/bin/sh
# crafted_current.sh HOMA_SCENARIO REPO_DIR CRAFTED_DIR - the committed
# crafted captures are what the scenarios write today: the same files,
# byte for byte (timestamps are fixed). On a difference, regenerate with
# `cmake --build build -t pktgen_pcaps` and review the decode goldens.
set -eu
BIN=$1 SRC=$2 CRAFTED=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$BIN" --write-pcaps "$T" "$SRC/kernel/selftests/scenarios" \
	"$SRC/kernel/selftests/fuzz" "$SRC/pktgen/pcapgen" > /dev/null
fail=0
(cd "$T" && ls *.pcap) > "$T/new.list"
(cd "$CRAFTED" && ls *.pcap) > "$T/old.list"
if ! cmp -s "$T/new.list" "$T/old.list"; then
	echo "crafted_current: the set of crafted pcaps differs (< written now, > committed):"
	diff "$T/new.list" "$T/old.list" || true
	fail=1
fi
n=0
while read -r f; do
	[ -f "$CRAFTED/$f" ] || continue
	n=$((n + 1))
	if ! cmp -s "$T/$f" "$CRAFTED/$f"; then
		echo "crafted_current: $f differs from what the scenarios write now"
		fail=1
	fi
done < "$T/new.list"
echo "crafted_current: compared $n pcaps"
[ "$n" -gt 0 ] && [ "$fail" = 0 ]
