#!/usr/bin/env bash
# fuzz.sh - decode thousands of corrupted variants of the captures.
#
# usage: fuzz.sh PLUGIN_SO ROUNDS CAPTURE...
# Each round concatenates the captures (each twice), corrupts bytes with
# 'editcap -E 0.02 --seed ROUND', and decodes the result twice (tshark -2 -V,
# once with TCP hijacking and a Decode As on), with reassembly and analysis on.
# Fails on a tshark crash or exit status other than 0, a "Dissector bug"
# (assertion inside a dissector), or GLib criticals/warnings on stderr.
source "$(dirname "$0")/lib.sh"

plugin="${1:?usage: fuzz.sh PLUGIN_SO ROUNDS CAPTURE...}"
rounds="${2:?}"
shift 2
ws_setup "$plugin"
ws_check_plugin

inputs=()
for c in "$@"; do
	for _ in 1 2; do inputs+=("$c"); done
done
mergecap -a -F pcap -w "$WS_WORK/base.pcap" "${inputs[@]}"
per_round="$(capinfos -c -M "$WS_WORK/base.pcap" | awk '/Number of packets/ {print $NF}')"

fail=0
total=0
homa=0
for seed in $(seq 1 "$rounds"); do
	f="$WS_WORK/in/fuzz-$seed.pcap"
	editcap -E 0.02 --seed "$seed" "$WS_WORK/base.pcap" "$f" > /dev/null
	chmod a+r "$f"
	for opts in "" "-o homa.tcp_hijack:TRUE -d ip.proto==253,homa -o homa.gso_min_len:100"; do
		rc=0
		# shellcheck disable=SC2086
		ws_run tshark -n -2 -r "$f" $opts -V > "$WS_WORK/out" 2> "$WS_WORK/err" || rc=$?
		if [[ $rc != 0 ]]; then
			echo "FAIL seed $seed ($opts): tshark exited with status $rc"
			tail -n 20 "$WS_WORK/err"
			cp "$f" "/tmp/homa-fuzz-fail-$seed.pcap" && echo "kept /tmp/homa-fuzz-fail-$seed.pcap"
			fail=1
			continue
		fi
		if grep -q "Dissector bug" "$WS_WORK/out"; then
			echo "FAIL seed $seed ($opts): dissector bug:"
			grep "Dissector bug" "$WS_WORK/out" | sort | uniq -c | head
			cp "$f" "/tmp/homa-fuzz-fail-$seed.pcap"
			fail=1
		fi
		if grep -Eq "CRITICAL|WARNING|\*\*" "$WS_WORK/err"; then
			echo "FAIL seed $seed ($opts): tshark complained:"
			head -n 20 "$WS_WORK/err"
			fail=1
		fi
		total=$((total + per_round))
		homa=$((homa + $(grep -c "^Homa Transport Protocol" "$WS_WORK/out" || true)))
	done
done
echo "decoded $total corrupted packets ($rounds variants x 2 settings x $per_round packets), $homa of them reaching the Homa dissector"
if [[ $homa == 0 ]]; then
	echo "FAIL: no corrupted packet reached the Homa dissector"
	fail=1
fi
exit $fail
