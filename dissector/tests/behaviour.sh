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

types4="$(ws_input "$synth/types-ipv4.pcap")"
types6="$(ws_input "$synth/types-ipv6.pcap")"
rpc="$(ws_input "$synth/rpc-analysis.pcap")"
gso="$(ws_input "$synth/gso.pcap")"
bad="$(ws_input "$synth/malformed.pcap")"
hij="$(ws_input "$synth/tcp-hijack.pcap")"
fd="$(ws_input "$synth/proto-0xfd.pcap")"

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

# 2. Every packet type decodes over IPv4 and IPv6, in order.
want="0x10,0x10,0x11,0x12,0x12,0x13,0x14,0x15,0x16,0x17,0x18"
fields v "$types4" -e homa.type
check "all nine types over IPv4" "$want" "$(list "$v")"
fields v "$types6" -e homa.type
check "all nine types over IPv6" "$want" "$(list "$v")"
fields v4 "$types4" -Y _ws.malformed -e frame.number
fields v6 "$types6" -Y _ws.malformed -e frame.number
check "no malformed packet among well-formed types (IPv4+IPv6)" "/" "$(list "$v4")/$(list "$v6")"

# 3. rpc_id is equal in both directions; from_client follows the id's low bit.
fields v "$types4" -Y 'homa.type==0x10' -e homa.rpc_id -e homa.from_client
check "rpc_id and from_client of request and response" "2 1,2 0" "$(tabs ' ' "$v")"

# 4. Requests pair with responses; response time is the first-DATA delta.
fields v "$rpc" -Y 'frame.number==1' -e homa.analysis.response_in
check "request 10 links to its response in frame 7" "7" "$v"
fields v "$rpc" -Y 'frame.number==7' -e homa.analysis.request_in -e homa.analysis.time
check "response frame 7 links back to request frame 1 with its time" "1 0.005275000" "$(tabs ' ' "$v")"
fields v "$rpc" -Y homa.analysis.no_response -e frame.number
check "the one unanswered request (id 14) is flagged" "16" "$(list "$v")"

# 5. Loss, retransmission, duplicate and reordering flags.
fields v "$rpc" -Y homa.analysis.hole -e frame.number -e homa.analysis.hole
check "hole after lost segment (request) and before reordered response" "2:1400,12:1400" "$(tabs : "$v")"
fields v "$rpc" -Y homa.analysis.duplicate -e frame.number
check "duplicate segments (one after the message completed)" "4,10" "$(list "$v")"
fields v "$rpc" -Y homa.analysis.retransmission -e frame.number
check "retransmissions (answer to RESEND, late duplicate)" "6,10" "$(list "$v")"
fields v "$rpc" -Y homa.analysis.out_of_order -e frame.number
check "out-of-order segment" "13" "$(list "$v")"
fields v "$rpc" -Y 'homa.rpc_id==10 && homa.from_client==1' -e homa.analysis.bytes_received
check "progress of the request: bytes seen after each segment" "1400,2800,3600,3600,5000" "$(list "$v")"

fields v "$rpc" -Y _ws.malformed -e frame.number
check "data arriving after reassembly completed is no reassembly error" "" "$(list "$v")"

# 6. Reassembly hands whole messages on (data dissector by default).
fields v "$rpc" -Y 'frame.number==6' -e homa.reassembled.length
check "5000-byte request reassembled in frame 6" "5000" "$v"
fields v "$rpc" -o homa.reassemble:FALSE -Y homa.reassembled.length -e frame.number
check "with reassembly off nothing is reassembled" "" "$(list "$v")"

# 6b. Hand-off: port table (server port 99) and heuristic list get whole
# messages, each exactly once, in the frame that completed it.
lua="$(ws_input "$HOMA_TESTS_DIR/homa-subdissector-test.lua")"
fields v "$rpc" -X lua_script:"$lua" -Y homatest_port -e frame.number -e homatest_port.len
check "homa.port table gets each complete message once (requests and responses)" \
	"6:5000,9:3000,11:300,14:2900,16:50" "$(tabs : "$v")"
fields v "$rpc" -X lua_script:"$lua" -o homa.try_heuristic_first:TRUE -Y homatest_heur \
	-e frame.number -e homatest_heur.len
check "heuristic list gets the message first with try_heuristic_first (only 'g...' matches)" \
	"11:300" "$(tabs : "$v")"

# 7. GSO: one IP packet, four segments, offsets follow.
fields v "$gso" -Y 'frame.number==1' -e homa.data.num_segments -e homa.data.offset -e homa.data.length
check "GSO DATA split into segments" "4 0,1400,2800,4200 1400,1400,1400,300" "$(tabs ' ' "$v")"
fields v "$gso" -o homa.detect_gso:FALSE -Y 'frame.number==1' -e homa.data.offset
check "GSO detection off: one segment" "0" "$v"

# 8. Malformed cases: truncation is malformed; the rest are expert items.
fields v "$bad" -Y _ws.malformed -e frame.number
check "truncated common/DATA/ACK/RESEND headers are malformed" "1,2,8,10" "$(list "$v")"
ex() { fields v "$bad" -Y "$2" -e frame.number; check "$1" "$3" "$(list "$v")"; }
ex "unknown type flagged" '_ws.expert.message contains "Unknown packet type"' 3
ex "doff mismatch flagged" '_ws.expert.message contains "disagrees"' 4
ex "segment past message_length flagged" '_ws.expert.message contains "runs past"' 5
ex "message_length over 1,000,000 flagged" '_ws.expert.message contains "HOMA_MAX_MESSAGE_LENGTH"' 6
ex "num_acks over 5 flagged" '_ws.expert.message contains "over HOMA_MAX_ACKS_PER_PKT"' 7
ex "num_acks over what the packet holds flagged" '_ws.expert.message contains "entries this packet holds"' 8
ex "non-zero reserved fields noted (not malformed)" '_ws.expert.message contains "Reserved field"' 9
ex "seg.offset 0xffffffff uses sequence" '_ws.expert.message contains "taken from sequence"' 11

# 9. TCP hijacking: only behind the preference, and plain TCP stays TCP.
fields v "$hij" -e _ws.col.Protocol
check "hijacked TCP is TCP with the preference off" "tcp,tcp" "$(list "$v" | tr '[:upper:]' '[:lower:]')"
fields v "$hij" -o homa.tcp_hijack:TRUE -e _ws.col.Protocol
check "hijacked TCP is Homa with the preference on; SYN stays TCP" "Homa/TCP,TCP" "$(list "$v")"

# 10. Decode As for another protocol number (old Homa used 0xFD).  The
# capture holds 2 frames (checked first, so "none is Homa" means something).
fields v "$fd" -e frame.number
check "proto-0xfd.pcap holds 2 frames" "1,2" "$(list "$v")"
fields v "$fd" -Y homa -e frame.number
check "IP protocol 0xFD is not Homa by default" "" "$(list "$v")"
fields v "$fd" -d ip.proto==253,homa -Y homa -e frame.number
check "Decode As ip.proto==253 makes it Homa" "1,2" "$(list "$v")"

# 10b. A Homa header quoted in an ICMP error is decoded, but is no RPC traffic.
icmp="$(ws_input "$synth/icmp-error.pcap")"
fields v "$icmp" -Y 'icmp && homa' -e frame.number -e homa.rpc_id
check "Homa header inside ICMP port unreachable is decoded" "2:70" "$(tabs : "$v")"
fields v "$icmp" -Y 'frame.number==1' -e frame.number -e homa.analysis.response_in \
	-e homa.analysis.request_in -e homa.analysis.duplicate
check "quoted request is not taken as a second request or a response" "1:::" "$(tabs : "$v")"
fields v "$icmp" -Y homa.analysis.no_response -e frame.number
check "the request stays unanswered" "1" "$(list "$v")"

# 11. Statistics: conversation, endpoint and SRT tables from tshark -z.
t conv -n -q -r "$rpc" -z conv,homa
check "conversation table has one conversation with all 16 frames" "16" \
	"$(awk '/<->/ {print $10}' <<<"$conv" | head -1)"
t ends -n -q -r "$rpc" -z endpoints,homa
check "endpoint table lists both endpoints" "2" "$(grep -c '^198\.18\.0\.1[12]' <<<"$ends" || true)"
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
