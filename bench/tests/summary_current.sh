#!/bin/sh
# bench_summary_matches_results: bench/results/summary.txt is exactly what
# bench/analyze computes from the raw bench/results/results.json committed
# beside it, so the README's Homa/TCP figures can be recomputed from data.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
res=$here/results
[ -s "$res/results.json" ] || { echo "not ok - $res/results.json is missing"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/usr/bin/python3 "$here/analyze" --check "$res/results.json" --outdir "$out" > "$out/log" 2>&1 ||
	{ cat "$out/log"; echo "not ok - bench/analyze failed on the committed results"; exit 1; }
if cmp -s "$out/summary.txt" "$res/summary.txt"; then
	echo "ok - summary.txt is what bench/analyze computes from results.json"
else
	diff "$res/summary.txt" "$out/summary.txt" || true
	echo "not ok - summary.txt differs from what bench/analyze computes from results.json"
	exit 1
fi
