#!/usr/bin/env bash
# valgrind.sh - tshark with the plugin under valgrind memcheck.
#
# usage: valgrind.sh PLUGIN_SO CAPTURE...
# Decodes the captures (merged, plus an editcap-corrupted copy) with
# tshark -2 -V under memcheck.  Fails when memcheck reports any error (invalid
# read/write, use of uninitialised values, bad free) in any code; leaks are
# not errors here (Wireshark keeps much memory until exit by design).  No
# suppression file is used.  tshark must exit 0 and write nothing to stderr.
# Without valgrind the test fails (no skip); HOMA_VALGRIND names another
# valgrind binary.
source "$(dirname "$0")/lib.sh"

plugin="${1:?usage: valgrind.sh PLUGIN_SO CAPTURE...}"
shift
# A missing valgrind fails the test (vm/setup-host installs it): a skip
# would let the memory check silently stop running.
vg="$(command -v "${HOMA_VALGRIND:-valgrind}" || true)"
if [[ -z "$vg" ]]; then
	echo "not ok - valgrind memcheck of the plugin"
	echo "# FAIL: '${HOMA_VALGRIND:-valgrind}' is not installed or not in PATH;" \
		"install it (vm/setup-host does: apt-get install valgrind)"
	exit 1
fi
ws_setup "$plugin"
ws_check_plugin

mergecap -a -F pcap -w "$WS_WORK/in/all.pcap" "$@"
editcap -E 0.03 --seed 7 "$WS_WORK/in/all.pcap" "$WS_WORK/in/bad.pcap" > /dev/null
mergecap -a -F pcap -w "$WS_WORK/in/vg.pcap" "$WS_WORK/in/all.pcap" "$WS_WORK/in/bad.pcap"
chmod a+r "$WS_WORK/in/"*
log="$WS_WORK/home/valgrind.log"

ws_run env G_SLICE=always-malloc G_DEBUG=gc-friendly \
	"$vg" --tool=memcheck --error-exitcode=99 --track-origins=yes \
	--log-file="$log" \
	tshark -n -2 -r "$WS_WORK/in/vg.pcap" -o homa.tcp_hijack:TRUE -V \
	> "$WS_WORK/out" 2> "$WS_WORK/err" || status=$?
status="${status:-0}"
echo "tshark under valgrind exited with status $status"
if [[ -s "$WS_WORK/err" ]]; then
	echo "FAIL: tshark wrote to stderr under valgrind:"
	head -n 20 "$WS_WORK/err"
	exit 1
fi
homa_pkts="$(grep -c "^Homa Transport Protocol" "$WS_WORK/out" || true)"
echo "Homa packets decoded under valgrind: $homa_pkts"
if [[ "$homa_pkts" == 0 ]]; then
	echo "FAIL: the plugin decoded nothing under valgrind"
	exit 1
fi
summary="$(grep "ERROR SUMMARY" "$log" || true)"
echo "valgrind: $summary"
homa_frames="$(grep -c "packet-homa.c" "$log" || true)"
echo "stack frames in packet-homa.c among reported errors: $homa_frames"
if [[ $status != 0 ]] || ! grep -q "ERROR SUMMARY: 0 errors" "$log"; then
	cat "$log"
	exit 1
fi
exit 0
