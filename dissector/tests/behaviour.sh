#!/usr/bin/env bash
# behaviour.sh - assertions about what the plugin does, independent of the
# goldens' exact text.  Each check names the behaviour it proves.  A check
# fails when any tshark run behind it exits non-zero or writes to stderr, and
# a missing recorded capture (pcaps/recorded) is a failure, not a skip.
#
# usage: behaviour.sh PLUGIN_SO SYNTHETIC_DIR
# The variables the checks read are set through the nameref in t().
# shellcheck disable=SC2034,SC2154
source "$(dirname "$0")/lib.sh"

plugin="${1:?usage: behaviour.sh PLUGIN_SO SYNTHETIC_DIR}"
synth="${2:?usage: behaviour.sh PLUGIN_SO SYNTHETIC_DIR}"
ws_setup "$plugin"
ws_check_plugin

fail=0
# Every tshark run goes through t (or fields), which keeps its output in a
# variable and, when tshark exits non-zero or writes anything to stderr,
# leaves the reason in $pending.  check then fails whatever the values are,
# so a check that expects nothing ("" or 0) cannot pass on a failed run.
pending=""
check() {	# check NAME EXPECTED ACTUAL
	if [[ -n "$pending" ]]; then
		echo "not ok - $1"
		echo "# a tshark run behind this check failed:"
		printf '%s\n' "$pending"
		pending=""
		fail=1
	elif [[ "$2" == "$3" ]]; then
		echo "ok - $1"
	else
		echo "not ok - $1"
		echo "#   expected: $(printf %q "$2")"
		echo "#   actual:   $(printf %q "$3")"
		fail=1
	fi
}
# t VAR ARGS...: tshark ARGS, its stdout into VAR
t() {
	local -n t_var="$1"
	local why
	shift
	if why="$(ws_tshark "$WS_WORK/t.out" "$@")"; then
		t_var="$(cat "$WS_WORK/t.out")"
	else
		t_var=""
		pending+="$why"$'\n'
	fi
}
# fields VAR FILE ARGS...: tshark -2 -T fields into VAR, one line per frame
fields() {
	local var="$1" f="$2"
	shift 2
	t "$var" -n -2 -r "$f" -T fields -E occurrence=a -E aggregator=, "$@"
}
# Lines of a captured output as one comma-separated line; count of lines.
list() { paste -sd, <<<"$1"; }
tabs() { tr '\t' "$1" <<<"$2" | paste -sd,; }
lines() { if [[ -z "$1" ]]; then echo 0; else wc -l <<<"$1"; fi; }

# 1. The plugin registers every field the issue lists.
t reg -G fields
missing=""
for f in homa.sport homa.dport homa.sequence homa.type homa.doff homa.sender_id \
	homa.rpc_id homa.from_client homa.data.message_length homa.data.incoming \
	homa.data.cutoff_version homa.data.retransmit homa.data.offset homa.data.length \
	homa.ack.client_id homa.ack.server_port homa.ack.num_acks homa.grant.offset \
	homa.grant.priority homa.grant.resend_all homa.resend.offset homa.resend.length \
	homa.resend.priority homa.cutoffs.unsched_cutoff homa.cutoffs.version; do
	awk -F'\t' -v f="$f" '$1=="F" && $3==f {found=1} END {exit !found}' \
		<<<"$reg" || missing+=" $f"
done
check "tshark -G fields lists every required homa.* field" "" "$missing"

# 2. The synthetic captures, each checked by the "#?" lines of the
# scenario that writes it (captures/NAME.scn writes NAME-v4.pcap and/or
# NAME-v6.pcap): "#? CHECK ;; TSHARK ARGS ;; EXPECTED", the args given to
# tshark -2 -T fields (shell quoting; $LUA is the test sub-dissector),
# its output with fields joined by ':' and frames by ','.  The checks name
# RPCs by the ids the story gives them, never by frame numbers.  A
# scenario without checks, or without a capture, fails.
lua="$(ws_input "$HOMA_TESTS_DIR/homa-subdissector-test.lua")"
story_re='^#\?\ ([^;]*)\ ;;\ ([^;]*)\ ;;\ ?(.*)$'
nstories=0
for scn in "$HOMA_TESTS_DIR"/captures/*.scn; do
	base="$(basename "$scn" .scn)"
	caps=()
	for c in "$synth/$base"-v4.pcap "$synth/$base"-v6.pcap; do
		[[ -f "$c" ]] && caps+=("$c")
	done
	nchecks="$(grep -c '^#?' "$scn" || true)"
	check "$base.scn: has checks and a capture" "yes" \
		"$( (( nchecks > 0 && ${#caps[@]} > 0 )) && echo yes || echo "no ($nchecks checks, ${#caps[@]} captures)")"
	for c in "${caps[@]}"; do
		cin="$(ws_input "$c")"
		while IFS= read -r line; do
			[[ "$line" == "#?"* ]] || continue
			if [[ ! "$line" =~ $story_re ]]; then
				check "$base.scn: check line well-formed" "" "$line"
				continue
			fi
			cname="${BASH_REMATCH[1]}" cargs="${BASH_REMATCH[2]//\$LUA/$lua}"
			cwant="${BASH_REMATCH[3]}"
			mapfile -d '' -t argv < <(xargs printf '%s\0' <<<"$cargs")
			fields v "$cin" "${argv[@]}"
			check "$(basename "$c"): $cname" "$cwant" "$(tabs : "$v")"
			nstories=$((nstories + 1))
		done < "$scn"
	done
done
check "story checks ran (at least 40)" "yes" "$( (( nstories >= 40 )) && echo yes || echo "no ($nstories)")"

# 11. Statistics: conversation, endpoint and SRT tables from tshark -z.
rpc="$(ws_input "$synth/rpc-analysis-v4.pcap")"
t conv -n -q -r "$rpc" -z conv,homa
check "conversation table has one conversation with all 16 frames" "16" \
	"$(awk '/<->/ {print $10}' <<<"$conv" | head -1)"
t ends -n -q -r "$rpc" -z endpoints,homa
check "endpoint table lists both endpoints" "2" "$(grep -cE '^198\.18\.0\.(11|100) ' <<<"$ends" || true)"
t srt -n -q -r "$rpc" -z homa,srt
check "SRT table counts the two answered RPCs" "2" \
	"$(awk '/request <= 1400 B|request <= 64 KiB/ {n += $(NF-4)} END {print n+0}' <<<"$srt")"

# 12. Real guest captures (pcaps/recorded, written by record-captures): each
# must be there, decode as Homa, and have nothing malformed, every RPC paired,
# every message complete.  A missing capture is a failure, not a skip.
recorded_names=(ipv4.pcap ipv6.pcap loss-ipv4.pcap loss-ipv6.pcap)
for r in "$HOMA_REPO_DIR"/pcaps/recorded/*.pcap; do
	[[ -f "$r" ]] || continue
	b="$(basename "$r")"
	[[ " ${recorded_names[*]} " == *" $b "* ]] || recorded_names+=("$b")
done
for b in "${recorded_names[@]}"; do
	r="$HOMA_REPO_DIR/pcaps/recorded/$b"
	if [[ ! -f "$r" ]]; then
		echo "not ok - $b: recorded capture present"
		echo "# missing $r (run dissector/tests/record-captures)"
		fail=1
		continue
	fi
	rin="$(ws_input "$r")"
	fields v "$rin" -Y homa -e frame.number
	check "$b: Homa decoded (at least 10 frames)" "yes" \
		"$( (( $(lines "$v") >= 10 )) && echo yes || echo "no ($(lines "$v") frames)")"
	fields v "$rin" -Y '_ws.malformed || homa.analysis.no_response || homa.analysis.no_request || homa.analysis.incomplete' -e frame.number
	check "$b: no malformed packet, no unpaired RPC, no incomplete message" "" "$(list "$v")"
done

if [[ $fail != 0 ]]; then
	echo "$conv"; echo "$ends"; echo "$srt"
fi
exit $fail
