#!/usr/bin/env bash
# bench.sh - how much the Homa plugin costs tshark.
#
# usage: bench.sh PLUGIN_SO HOMA_SCENARIO HOMA_PKTGEN [NPACKETS] [RUNS]
# Writes a capture of at least NPACKETS (default 100,000) Homa packets:
# homa-scenario --write-pcaps writes the 22 frames of captures/bench-rpc.scn
# (RPC 2 over IPv4, RPC 4 over IPv6: request, 8-segment response, NEED_ACK,
# ACK), and homa-pktgen -r repeats them with --id-step 4 (distinct RPCs);
# then it times 'tshark -r CAPTURE' (one pass, summary
# lines to /dev/null) with the plugin and with --disable-protocol homa,
# RUNS times each (default 3), interleaved, and prints the best CPU and wall
# times and their ratios.  Analysis and reassembly preferences stay at their defaults.
source "$(dirname "$0")/lib.sh"
usage="usage: bench.sh PLUGIN_SO HOMA_SCENARIO HOMA_PKTGEN [NPACKETS] [RUNS]"
plugin="${1:?$usage}"
scenario="${2:?$usage}"
pktgen="${3:?$usage}"
npkts="${4:-100000}"
runs="${5:-3}"
ws_setup "$plugin"
ws_check_plugin
"$scenario" --write-pcaps "$WS_WORK/in" "$HOMA_TESTS_DIR/captures/bench-rpc.scn" > /dev/null
"$pktgen" -q -r "$WS_WORK/in/bench-rpc-v4.pcap" --loop $(( (npkts + 21) / 22 )) \
	--id-step 4 -w "$WS_WORK/in/bench.pcap"
chmod a+r "$WS_WORK/in/bench.pcap"
cap="$WS_WORK/in/bench.pcap"
echo "capture: $(capinfos -c -M "$cap" | awk '/Number of packets/ {print $NF}') packets"

# t ARGS...: "wall cpu" seconds of one tshark run (cpu = user + system; less
# sensitive than wall time to other load on a shared machine)
t() {
	local tf="$WS_WORK/home/time.$$"
	ws_run /usr/bin/time -f "%e %U %S" -o "$tf" tshark -n -r "$cap" "$@" > /dev/null
	awk '{printf "%s %.2f\n", $1, $2 + $3}' "$tf"
}
best_on=999999 best_off=999999 wbest_on=999999 wbest_off=999999
for i in $(seq 1 "$runs"); do
	read -r won on < <(t)
	read -r woff off < <(t --disable-protocol homa)
	echo "run $i: with plugin cpu ${on}s (wall ${won}s), --disable-protocol homa cpu ${off}s (wall ${woff}s)"
	best_on=$(echo "if ($on < $best_on) $on else $best_on" | bc)
	best_off=$(echo "if ($off < $best_off) $off else $best_off" | bc)
	wbest_on=$(echo "if ($won < $wbest_on) $won else $wbest_on" | bc)
	wbest_off=$(echo "if ($woff < $wbest_off) $woff else $wbest_off" | bc)
done
printf 'best cpu: with plugin %.2fs, disabled %.2fs, ratio %.2f\n' "$best_on" "$best_off" \
	"$(echo "scale=4; $best_on / $best_off" | bc)"
printf 'best wall: with plugin %.2fs, disabled %.2fs, ratio %.2f\n' "$wbest_on" "$wbest_off" \
	"$(echo "scale=4; $wbest_on / $wbest_off" | bc)"
