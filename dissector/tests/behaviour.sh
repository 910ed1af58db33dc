#!/usr/bin/env bash
# behaviour.sh - assertions about what the plugin does, independent of the
# goldens' exact text.  Each check names the behaviour it proves.
#
# usage: behaviour.sh PLUGIN_SO SYNTHETIC_DIR
source "$(dirname "$0")/lib.sh"

plugin="${1:?usage: behaviour.sh PLUGIN_SO SYNTHETIC_DIR}"
synth="${2:?usage: behaviour.sh PLUGIN_SO SYNTHETIC_DIR}"
ws_setup "$plugin"
ws_check_plugin

fail=0
check() {	# check NAME EXPECTED ACTUAL
	if [[ "$2" == "$3" ]]; then
		echo "ok - $1"
	else
		echo "not ok - $1"
		echo "#   expected: $(printf %q "$2")"
		echo "#   actual:   $(printf %q "$3")"
		fail=1
	fi
}
# fields FILE ARGS...: tshark -2 -T fields, one line per frame
fields() {
	local f="$1"; shift
	ws_run tshark -n -2 -r "$f" -T fields -E occurrence=a -E aggregator=, "$@"
}

types4="$(ws_input "$synth/types-ipv4.pcap")"
types6="$(ws_input "$synth/types-ipv6.pcap")"
rpc="$(ws_input "$synth/rpc-analysis.pcap")"
gso="$(ws_input "$synth/gso.pcap")"
bad="$(ws_input "$synth/malformed.pcap")"
hij="$(ws_input "$synth/tcp-hijack.pcap")"
fd="$(ws_input "$synth/proto-0xfd.pcap")"

# 1. The plugin registers every field the issue lists.
ws_run tshark -G fields > "$WS_WORK/fields"
missing=""
for f in homa.sport homa.dport homa.sequence homa.type homa.doff homa.sender_id \
	homa.rpc_id homa.from_client homa.data.message_length homa.data.incoming \
	homa.data.cutoff_version homa.data.retransmit homa.data.offset homa.data.length \
	homa.ack.client_id homa.ack.server_port homa.ack.num_acks homa.grant.offset \
	homa.grant.priority homa.grant.resend_all homa.resend.offset homa.resend.length \
	homa.resend.priority homa.cutoffs.unsched_cutoff homa.cutoffs.version; do
	awk -F'\t' -v f="$f" '$1=="F" && $3==f {found=1} END {exit !found}' \
		"$WS_WORK/fields" || missing+=" $f"
done
check "tshark -G fields lists every required homa.* field" "" "$missing"

# 2. Every packet type decodes over IPv4 and IPv6, in order.
want="0x10,0x10,0x11,0x12,0x12,0x13,0x14,0x15,0x16,0x17,0x18"
check "all nine types over IPv4" "$want" "$(fields "$types4" -e homa.type | paste -sd,)"
check "all nine types over IPv6" "$want" "$(fields "$types6" -e homa.type | paste -sd,)"
check "no malformed packet among well-formed types (IPv4+IPv6)" "0" \
	"$( (fields "$types4" -Y _ws.malformed -e frame.number; fields "$types6" -Y _ws.malformed -e frame.number) | wc -l)"

# 3. rpc_id is equal in both directions; from_client follows the id's low bit.
check "rpc_id and from_client of request and response" "2 1,2 0" \
	"$(fields "$types4" -Y 'homa.type==0x10' -e homa.rpc_id -e homa.from_client | tr '\t' ' ' | paste -sd,)"

# 4. Requests pair with responses; response time is the first-DATA delta.
check "request 10 links to its response in frame 7" "7" \
	"$(fields "$rpc" -Y 'frame.number==1' -e homa.analysis.response_in)"
check "response frame 7 links back to request frame 1 with its time" "1 0.005275000" \
	"$(fields "$rpc" -Y 'frame.number==7' -e homa.analysis.request_in -e homa.analysis.time | tr '\t' ' ')"
check "the one unanswered request (id 14) is flagged" "16" \
	"$(fields "$rpc" -Y homa.analysis.no_response -e frame.number | paste -sd,)"

# 5. Loss, retransmission, duplicate and reordering flags.
check "hole after lost segment (request) and before reordered response" "2:1400,12:1400" \
	"$(fields "$rpc" -Y homa.analysis.hole -e frame.number -e homa.analysis.hole | tr '\t' ':' | paste -sd,)"
check "duplicate segments (one after the message completed)" "4,10" "$(fields "$rpc" -Y homa.analysis.duplicate -e frame.number | paste -sd,)"
check "retransmissions (answer to RESEND, late duplicate)" "6,10" "$(fields "$rpc" -Y homa.analysis.retransmission -e frame.number | paste -sd,)"
check "out-of-order segment" "13" "$(fields "$rpc" -Y homa.analysis.out_of_order -e frame.number | paste -sd,)"
check "progress of the request: bytes seen after each segment" "1400,2800,3600,3600,5000" \
	"$(fields "$rpc" -Y 'homa.rpc_id==10 && homa.from_client==1' -e homa.analysis.bytes_received | paste -sd,)"

check "data arriving after reassembly completed is no reassembly error" "0" \
	"$(fields "$rpc" -Y _ws.malformed -e frame.number | wc -l)"

# 6. Reassembly hands whole messages on (data dissector by default).
check "5000-byte request reassembled in frame 6" "5000" \
	"$(fields "$rpc" -Y 'frame.number==6' -e homa.reassembled.length)"
check "with reassembly off nothing is reassembled" "" \
	"$(fields "$rpc" -o homa.reassemble:FALSE -Y homa.reassembled.length -e frame.number | paste -sd,)"

# 6b. Hand-off: port table (server port 99) and heuristic list get whole
# messages, each exactly once, in the frame that completed it.
lua="$(ws_input "$HOMA_TESTS_DIR/homa-subdissector-test.lua")"
check "homa.port table gets each complete message once (requests and responses)" \
	"6:5000,9:3000,11:300,14:2900,16:50" \
	"$(fields "$rpc" -X lua_script:"$lua" -Y homatest_port -e frame.number -e homatest_port.len | tr '\t' ':' | paste -sd,)"
check "heuristic list gets the message first with try_heuristic_first (only 'g...' matches)" \
	"11:300" \
	"$(fields "$rpc" -X lua_script:"$lua" -o homa.try_heuristic_first:TRUE -Y homatest_heur -e frame.number -e homatest_heur.len | tr '\t' ':' | paste -sd,)"

# 7. GSO: one IP packet, four segments, offsets follow.
check "GSO DATA split into segments" "4 0,1400,2800,4200 1400,1400,1400,300" \
	"$(fields "$gso" -Y 'frame.number==1' -e homa.data.num_segments -e homa.data.offset -e homa.data.length | tr '\t' ' ')"
check "GSO detection off: one segment" "0" \
	"$(fields "$gso" -o homa.detect_gso:FALSE -Y 'frame.number==1' -e homa.data.offset)"

# 8. Malformed cases: truncation is malformed; the rest are expert items.
check "truncated common/DATA/ACK/RESEND headers are malformed" "1,2,8,10" \
	"$(fields "$bad" -Y _ws.malformed -e frame.number | paste -sd,)"
ex() { fields "$bad" -Y "$1" -e frame.number | paste -sd,; }
check "unknown type flagged" "3" "$(ex '_ws.expert.message contains "Unknown packet type"')"
check "doff mismatch flagged" "4" "$(ex '_ws.expert.message contains "disagrees"')"
check "segment past message_length flagged" "5" "$(ex '_ws.expert.message contains "runs past"')"
check "message_length over 1,000,000 flagged" "6" "$(ex '_ws.expert.message contains "HOMA_MAX_MESSAGE_LENGTH"')"
check "num_acks over 5 flagged" "7" "$(ex '_ws.expert.message contains "over HOMA_MAX_ACKS_PER_PKT"')"
check "num_acks over what the packet holds flagged" "8" "$(ex '_ws.expert.message contains "entries this packet holds"')"
check "non-zero reserved fields noted (not malformed)" "9" "$(ex '_ws.expert.message contains "Reserved field"' )"
check "seg.offset 0xffffffff uses sequence" "11" "$(ex '_ws.expert.message contains "taken from sequence"')"

# 9. TCP hijacking: only behind the preference, and plain TCP stays TCP.
check "hijacked TCP is TCP with the preference off" "tcp,tcp" \
	"$(fields "$hij" -e _ws.col.Protocol | tr 'A-Z' 'a-z' | paste -sd,)"
check "hijacked TCP is Homa with the preference on; SYN stays TCP" "Homa/TCP,TCP" \
	"$(fields "$hij" -o homa.tcp_hijack:TRUE -e _ws.col.Protocol | paste -sd,)"

# 10. Decode As for another protocol number (old Homa used 0xFD).
check "IP protocol 0xFD is not Homa by default" "0" \
	"$(fields "$fd" -Y homa -e frame.number | wc -l)"
check "Decode As ip.proto==253 makes it Homa" "2" \
	"$(fields "$fd" -d ip.proto==253,homa -Y homa -e frame.number | wc -l)"

# 10b. A Homa header quoted in an ICMP error is decoded, but is no RPC traffic.
icmp="$(ws_input "$synth/icmp-error.pcap")"
check "Homa header inside ICMP port unreachable is decoded" "2:70" \
	"$(fields "$icmp" -Y 'icmp && homa' -e frame.number -e homa.rpc_id | tr '\t' ':')"
check "quoted request is not taken as a second request or a response" "1:::" \
	"$(fields "$icmp" -Y 'frame.number==1' -e frame.number -e homa.analysis.response_in -e homa.analysis.request_in -e homa.analysis.duplicate | tr '\t' ':')"
check "the request stays unanswered" "1" \
	"$(fields "$icmp" -Y homa.analysis.no_response -e frame.number | paste -sd,)"

# 11. Statistics: conversation, endpoint and SRT tables from tshark -z.
conv="$(ws_run tshark -n -q -r "$rpc" -z conv,homa)"
check "conversation table has one conversation with all 16 frames" "16" \
	"$(awk '/<->/ {print $10}' <<<"$conv" | head -1)"
ends="$(ws_run tshark -n -q -r "$rpc" -z endpoints,homa)"
check "endpoint table lists both endpoints" "2" "$(grep -c '^198\.18\.0\.1[12]' <<<"$ends")"
srt="$(ws_run tshark -n -q -r "$rpc" -z homa,srt)"
check "SRT table counts the two answered RPCs" "2" \
	"$(awk '/request <= 1400 B|request <= 64 KiB/ {n += $(NF-4)} END {print n+0}' <<<"$srt")"
# 12. Real guest captures (pcaps/recorded): nothing malformed, every RPC
# paired, every message complete.
shopt -s nullglob
recorded=("$HOMA_REPO_DIR"/pcaps/recorded/*.pcap)
if [[ ${#recorded[@]} -eq 0 ]]; then
	echo "ok - recorded captures clean # SKIP no capture in pcaps/recorded"
fi
for r in "${recorded[@]}"; do
	rin="$(ws_input "$r")"
	check "$(basename "$r"): Homa decoded" "yes" \
		"$( [[ "$(fields "$rin" -Y homa -e frame.number | wc -l)" -gt 0 ]] && echo yes || echo no)"
	check "$(basename "$r"): no malformed packet, no unpaired RPC, no incomplete message" "" \
		"$(fields "$rin" -Y '_ws.malformed || homa.analysis.no_response || homa.analysis.no_request || homa.analysis.incomplete' -e frame.number | paste -sd,)"
done

if [[ $fail != 0 ]]; then
	echo "$conv"; echo "$ends"; echo "$srt"
fi
exit $fail
