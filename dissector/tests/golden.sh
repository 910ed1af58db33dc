#!/usr/bin/env bash
# golden.sh - decode every capture with tshark and compare with the goldens.
#
# usage: golden.sh [--update] PLUGIN_SO [SYNTHETIC_DIR]
#
# Captures: every *.pcap / *.pcapng under pcaps/ (crafted/, recorded/, ...;
# pcaps/expected/ excluded), named by their path below pcaps/, and every
# capture in SYNTHETIC_DIR (written by homa-scenario --write-pcaps from
# dissector/tests/captures/*.scn), named synthetic/NAME.
# For a capture R the goldens are pcaps/expected/R.V.txt (tshark -2 -V -O homa:
# the Homa tree in full, the layers Wireshark itself decodes as one-line
# summaries, which keeps goldens of recorded captures reviewable) and
# pcaps/expected/R.fields.txt (tshark -2 -T fields ...).  Extra tshark
# arguments for one capture (e.g. a Decode As) go in pcaps/expected/R.args.
# --update rewrites the goldens instead of comparing.
source "$(dirname "$0")/lib.sh"

update=0
if [[ "${1:-}" == "--update" ]]; then
	update=1
	shift
fi
plugin="${1:?usage: golden.sh [--update] PLUGIN_SO [SYNTHETIC_DIR]}"
synth="${2:-}"
expected="$HOMA_REPO_DIR/pcaps/expected"

ws_setup "$plugin"
ws_check_plugin

FIELDS=(frame.number _ws.col.Info homa.type homa.sport homa.dport homa.rpc_id
	homa.from_client homa.data.message_length homa.data.offset homa.data.length
	homa.data.retransmit homa.ack.client_id homa.ack.num_acks homa.resend.offset
	homa.resend.length homa.grant.offset homa.analysis.request_in
	homa.analysis.response_in homa.analysis.time homa.analysis.bytes_received
	_ws.malformed _ws.expert.message)
fargs=()
for f in "${FIELDS[@]}"; do fargs+=(-e "$f"); done

declare -a names=() files=()
while IFS= read -r -d '' f; do
	names+=("${f#"$HOMA_REPO_DIR/pcaps/"}")
	files+=("$f")
done < <(find "$HOMA_REPO_DIR/pcaps" -path "$expected" -prune -o \
	\( -name '*.pcap' -o -name '*.pcapng' \) -type f -print0 | sort -z)
if [[ -n "$synth" ]]; then
	while IFS= read -r -d '' f; do
		names+=("synthetic/$(basename "$f")")
		files+=("$f")
	done < <(find "$synth" -maxdepth 1 \( -name '*.pcap' -o -name '*.pcapng' \) \
		-type f -print0 | sort -z)
fi
if [[ ${#files[@]} -eq 0 ]]; then
	echo "error: no captures found" >&2
	exit 1
fi

fail=0
for i in "${!files[@]}"; do
	name="${names[$i]}"
	in="$(ws_input "${files[$i]}")"
	extra=()
	if [[ -f "$expected/$name.args" ]]; then
		read -r -a extra < "$expected/$name.args"
	fi
	out_v="$WS_WORK/out.V" out_f="$WS_WORK/out.fields"
	ws_run tshark -n -2 -r "$in" "${extra[@]}" -V -O homa > "$out_v" 2> "$WS_WORK/err" ||
		{ echo "FAIL $name: tshark -V failed"; cat "$WS_WORK/err"; fail=1; continue; }
	ws_run tshark -n -2 -r "$in" "${extra[@]}" -T fields -E header=y \
		-E occurrence=a -E aggregator=, "${fargs[@]}" > "$out_f" 2>> "$WS_WORK/err" ||
		{ echo "FAIL $name: tshark -T fields failed"; cat "$WS_WORK/err"; fail=1; continue; }
	if [[ -s "$WS_WORK/err" ]]; then
		echo "FAIL $name: tshark wrote to stderr:"; cat "$WS_WORK/err"; fail=1
	fi
	for kind in V fields; do
		gold="$expected/$name.$kind.txt"
		got="$WS_WORK/out.$kind"
		if [[ $update == 1 ]]; then
			mkdir -p "$(dirname "$gold")"
			cp "$got" "$gold"
			continue
		fi
		if [[ ! -f "$gold" ]]; then
			echo "FAIL $name: no golden $gold (run dissector/tests/update-goldens)"
			fail=1
		elif ! diff -u "$gold" "$got" > "$WS_WORK/diff"; then
			echo "FAIL $name ($kind): decode differs from $gold:"
			head -n 60 "$WS_WORK/diff"
			fail=1
		fi
	done
	[[ $update == 1 ]] && echo "updated $name" || echo "ok $name"
done

# Goldens of captures that no longer exist are stale: every file under
# pcaps/expected/ (R.V.txt, R.fields.txt, R.args) must belong to a capture R,
# whichever of them is left over.
while IFS= read -r -d '' g; do
	rel="${g#"$expected/"}"
	case "$rel" in
	*.V.txt) rel="${rel%.V.txt}" ;;
	*.fields.txt) rel="${rel%.fields.txt}" ;;
	*.args) rel="${rel%.args}" ;;
	*)
		echo "FAIL unexpected file $g in pcaps/expected (neither .V.txt, .fields.txt nor .args)"
		fail=1
		continue
		;;
	esac
	found=0
	for n in "${names[@]}"; do [[ "$n" == "$rel" ]] && found=1; done
	[[ $found == 1 ]] && continue
	if [[ $update == 1 ]]; then
		rm -f "$g"
		echo "removed stale golden $g"
	else
		echo "FAIL stale golden $g (its capture is gone; run update-goldens)"
		fail=1
	fi
done < <(find "$expected" -type f -print0 | sort -z)
exit $fail
