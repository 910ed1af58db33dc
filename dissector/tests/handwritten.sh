#!/usr/bin/env bash
# handwritten.sh - decode frames written out byte by byte, one per Homa packet
# type, and compare every homa.* field with values written down by hand.
#
# usage: handwritten.sh PLUGIN_SO
#
# Nothing here comes from kernel/homa_wire.h, the crafter or the dissector:
# the bytes below and the expected values were written from the wire format
# in shared/spec/FACTS.md (field order, sizes, type codes; big-endian; no
# padding) and the seed patches (DATA: sequence = seg.offset = the segment's
# offset, doff 56 bytes, or 52 with GSO where every segment carries its own
# 4-byte seg.offset before its data; control packets go out as their struct,
# doff may be 0).  A field the dissector places at another offset, decodes
# with another size, or leaves out, fails the frame it belongs to.
#
# Common header (28 bytes), as each frame below spells it:
#   sport(2) dport(2) sequence(4) ack(3, reserved) type(1) doff(1)
#   flags(1, reserved) window(2, reserved) checksum(2) urgent(2, reserved)
#   sender_id(8)
# doff: header bytes / 4 in the upper nibble (56 -> 0xe0, 52 -> 0xd0, ...).
# sender_id: even from the client, odd from the server; the RPC id shown
# (homa.rpc_id) is the client's, i.e. sender_id with bit 0 cleared.
source "$(dirname "$0")/lib.sh"

plugin="${1:?usage: handwritten.sh PLUGIN_SO}"
ws_setup "$plugin"
ws_check_plugin

# ---------------------------------------------------------------------------
# The frames.  Ethernet 02:00:00:00:00:01 <-> 02:00:00:00:00:02; IPv4
# 198.18.0.1 <-> 198.18.0.2 (protocol 0x92 = 146, DF, TTL 64, header
# checksum filled in by hand), IPv6 2001:db8::1 <-> 2001:db8::2 (next
# header 0x92, hop limit 64).  Client port 40001 (0x9c41), server port 99.
# ---------------------------------------------------------------------------
labels=() hexes=() wants=()
# frame LABEL HEX EXPECTED: EXPECTED lists FIELD=VALUE; every field of
# $FIELDS not listed must be absent (empty).
frame() { labels+=("$1"); hexes+=("$2"); wants+=("$3"); }

ETH4="020000000002 020000000001 0800"	# to .2 from .1
ETH4R="020000000001 020000000002 0800"	# to .1 from .2
ETH6="020000000002 020000000001 86dd"
ETH6R="020000000001 020000000002 86dd"
C2S4="c6120001 c6120002"	# IPv4 198.18.0.1 -> 198.18.0.2
S2C4="c6120002 c6120001"
C2S6="20010db8000000000000000000000001 20010db8000000000000000000000002"
S2C6="20010db8000000000000000000000002 20010db8000000000000000000000001"

# 1. DATA, one segment of 20 bytes at offset 1400 of a 3000-byte request,
# a piggy-backed ack, retransmit set, every other field non-zero and unique.
frame "DATA v4: one segment, piggy-backed ack, retransmit" "
$ETH4
4500 0060 0001 4000 4092 ade3 $C2S4
9c41 0063 00000578 000000 10 e0 00 0000 0000 0000 0102030405060708
00000bb8 00001f40 1122334455667788 1f90 0102 01 000000 00000578
30313233343536373839616263646566 6768696a
" "ip.proto=146 homa.sport=40001 homa.dport=99 homa.sequence=1400
homa.reserved.ack=0 homa.type=0x10 homa.doff=0xe0 homa.hdr_len=56
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=72623859790382856
homa.rpc_id=72623859790382856 homa.from_client=1
homa.data.message_length=3000 homa.data.incoming=8000
homa.ack.client_id=1234605616436508552 homa.ack.server_port=8080
homa.data.cutoff_version=258 homa.data.retransmit=1 homa.data.pad=0
homa.data.offset=1400 homa.data.length=20
homa.payload=303132333435363738396162636465666768696a"

# 2. DATA from the server with seg.offset 0xffffffff: the offset is then
# common.sequence (2800); no ack (all zero).
frame "DATA v4: response, seg.offset 0xffffffff takes sequence" "
$ETH4R
4500 0056 0001 4000 4092 aded $S2C4
0063 9c41 00000af0 000000 10 e0 00 0000 0000 0000 0102030405060709
00000afa 00000000 0000000000000000 0000 0000 00 000000 ffffffff
6b6c6d6e6f7071727374
" "ip.proto=146 homa.sport=99 homa.dport=40001 homa.sequence=2800
homa.reserved.ack=0 homa.type=0x10 homa.doff=0xe0 homa.hdr_len=56
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=72623859790382857
homa.rpc_id=72623859790382856 homa.from_client=0
homa.data.message_length=2810 homa.data.incoming=0
homa.ack.client_id=0 homa.ack.server_port=0
homa.data.cutoff_version=0 homa.data.retransmit=0 homa.data.pad=0
homa.data.offset=2800 homa.data.length=10
homa.payload=6b6c6d6e6f7071727374
expert~taken from sequence"

# 3. GSO DATA: the 52-byte prefix (doff 0xd0), then three segments
# [seg.offset][data]: 0+8, 8+8, 16+4 of a 20-byte message.
frame "DATA v4: GSO, three segments" "
$ETH4
4500 0068 0001 4000 4092 addb $C2S4
9c43 0063 00000000 000000 10 d0 00 0000 0000 0000 0000000000000064
00000014 00000000 0000000000000000 0000 0000 00 000000
00000000 4141414141414141
00000008 4242424242424242
00000010 43434343
" "ip.proto=146 homa.sport=40003 homa.dport=99 homa.sequence=0
homa.reserved.ack=0 homa.type=0x10 homa.doff=0xd0 homa.hdr_len=52
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=100 homa.rpc_id=100 homa.from_client=1
homa.data.message_length=20 homa.data.incoming=0
homa.ack.client_id=0 homa.ack.server_port=0
homa.data.cutoff_version=0 homa.data.retransmit=0 homa.data.pad=0
homa.data.num_segments=3 homa.data.offset=0,8,16 homa.data.length=8,8,4
homa.payload=4141414141414141,4242424242424242,43434343
expert~3 segments"

# 4. GRANT (34 bytes): offset 100000, priority 5, resend_all 1.
frame "GRANT v4" "
$ETH4R
4500 0036 0001 4000 4092 ae0d $S2C4
0063 9c41 00000000 000000 11 80 00 0000 0000 0000 00000000000003e9
000186a0 05 01
" "ip.proto=146 homa.sport=99 homa.dport=40001 homa.sequence=0
homa.reserved.ack=0 homa.type=0x11 homa.doff=0x80 homa.hdr_len=32
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=1001 homa.rpc_id=1000 homa.from_client=0
homa.grant.offset=100000 homa.grant.priority=5 homa.grant.resend_all=1"

# 5. RESEND as v4 sends it (36 bytes, no priority): offset 5000, length 1000.
frame "RESEND v4 (36 bytes)" "
$ETH4R
4500 0038 0001 4000 4092 ae0b $S2C4
0063 9c41 00000000 000000 12 90 00 0000 0000 0000 00000000000007d1
00001388 000003e8
" "ip.proto=146 homa.sport=99 homa.dport=40001 homa.sequence=0
homa.reserved.ack=0 homa.type=0x12 homa.doff=0x90 homa.hdr_len=36
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=2001 homa.rpc_id=2000 homa.from_client=0
homa.resend.offset=5000 homa.resend.length=1000"

# 6. RESEND as full Homa sends it (37 bytes): offset 100, length 3200, prio 7.
frame "RESEND full (37 bytes, priority)" "
$ETH4
4500 0039 0001 4000 4092 ae0a $C2S4
9c41 0063 00000000 000000 12 90 00 0000 0000 0000 0000000000000bb8
00000064 00000c80 07
" "ip.proto=146 homa.sport=40001 homa.dport=99 homa.sequence=0
homa.reserved.ack=0 homa.type=0x12 homa.doff=0x90 homa.hdr_len=36
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=3000 homa.rpc_id=3000 homa.from_client=1
homa.resend.offset=100 homa.resend.length=3200 homa.resend.priority=7"

# 7-11. Common header only (28 bytes): UNKNOWN, BUSY, FREEZE, NEED_ACK;
# doff 0x70 (28 bytes) or 0 as v4 senders leave it.
frame "UNKNOWN v4" "
$ETH4
4500 0030 0001 4000 4092 ae13 $C2S4
9c41 0063 00000000 000000 13 70 00 0000 0000 0000 0000000000000fa0
" "ip.proto=146 homa.sport=40001 homa.dport=99 homa.sequence=0
homa.reserved.ack=0 homa.type=0x13 homa.doff=0x70 homa.hdr_len=28
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=4000 homa.rpc_id=4000 homa.from_client=1"

frame "BUSY v4 (doff 0)" "
$ETH4R
4500 0030 0001 4000 4092 ae13 $S2C4
0063 9c41 00000000 000000 14 00 00 0000 0000 0000 0000000000001389
" "ip.proto=146 homa.sport=99 homa.dport=40001 homa.sequence=0
homa.reserved.ack=0 homa.type=0x14 homa.doff=0x00 homa.hdr_len=0
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=5001 homa.rpc_id=5000 homa.from_client=0"

# CUTOFFS (62 bytes): eight 4-byte cutoffs, then cutoff_version 515; doff
# can say at most 60 bytes (0xf0).
frame "CUTOFFS v4" "
$ETH4R
4500 0052 0001 4000 4092 adf1 $S2C4
0063 9c41 00000000 000000 15 f0 00 0000 0000 0000 0000000000001771
000f4240 0007a120 000186a0 0000c350 00002710 00001388 000003e8 00000064
0203
" "ip.proto=146 homa.sport=99 homa.dport=40001 homa.sequence=0
homa.reserved.ack=0 homa.type=0x15 homa.doff=0xf0 homa.hdr_len=60
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=6001 homa.rpc_id=6000 homa.from_client=0
homa.cutoffs.unsched_cutoff=1000000,500000,100000,50000,10000,5000,1000,100
homa.cutoffs.version=515"

frame "FREEZE v4" "
$ETH4
4500 0030 0001 4000 4092 ae13 $C2S4
9c41 0063 00000000 000000 16 70 00 0000 0000 0000 0000000000001b58
" "ip.proto=146 homa.sport=40001 homa.dport=99 homa.sequence=0
homa.reserved.ack=0 homa.type=0x16 homa.doff=0x70 homa.hdr_len=28
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=7000 homa.rpc_id=7000 homa.from_client=1"

frame "NEED_ACK v4" "
$ETH4R
4500 0030 0001 4000 4092 ae13 $S2C4
0063 9c41 00000000 000000 17 70 00 0000 0000 0000 0000000000001f41
" "ip.proto=146 homa.sport=99 homa.dport=40001 homa.sequence=0
homa.reserved.ack=0 homa.type=0x17 homa.doff=0x70 homa.hdr_len=28
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=8001 homa.rpc_id=8000 homa.from_client=0"

# 12. ACK (80 bytes): num_acks 2, then five 10-byte entries
# [client_id(8) server_port(2)], the last three unused (zero).
frame "ACK v4: two acks" "
$ETH4
4500 0064 0001 4000 4092 addf $C2S4
9c41 0063 00000000 000000 18 00 00 0000 0000 0000 000000000000232c
0002
0000000000002328 0064
000000000000232a 0065
0000000000000000 0000
0000000000000000 0000
0000000000000000 0000
" "ip.proto=146 homa.sport=40001 homa.dport=99 homa.sequence=0
homa.reserved.ack=0 homa.type=0x18 homa.doff=0x00 homa.hdr_len=0
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=9004 homa.rpc_id=9004 homa.from_client=1
homa.ack.num_acks=2 homa.ack.self=9004
homa.ack.client_id=9000,9002 homa.ack.server_port=100,101"

# 13. IPv6 DATA: the whole 12-byte message in one segment, a sender_id
# above 2^63, an ack of RPC 100000 on server port 80.
frame "DATA v6: whole message, 64-bit id, ack" "
$ETH6
6000 0000 0044 92 40 $C2S6
9c45 0063 00000000 000000 10 e0 00 0000 0000 0000 fedcba9876543210
0000000c 0000000c 00000000000186a0 0050 0000 00 000000 00000000
68656c6c6f2c20686f6d6121
" "ipv6.nxt=146 homa.sport=40005 homa.dport=99 homa.sequence=0
homa.reserved.ack=0 homa.type=0x10 homa.doff=0xe0 homa.hdr_len=56
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=18364758544493064720
homa.rpc_id=18364758544493064720 homa.from_client=1
homa.data.message_length=12 homa.data.incoming=12
homa.ack.client_id=100000 homa.ack.server_port=80
homa.data.cutoff_version=0 homa.data.retransmit=0 homa.data.pad=0
homa.data.offset=0 homa.data.length=12
homa.payload=68656c6c6f2c20686f6d6121"

# 14. IPv6 RESEND (0, 100): the one sent when nothing has arrived.
frame "RESEND v6 (0, 100)" "
$ETH6R
6000 0000 0024 92 40 $S2C6
0063 9c45 00000000 000000 12 90 00 0000 0000 0000 fedcba9876543211
00000000 00000064
" "ipv6.nxt=146 homa.sport=99 homa.dport=40005 homa.sequence=0
homa.reserved.ack=0 homa.type=0x12 homa.doff=0x90 homa.hdr_len=36
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=18364758544493064721
homa.rpc_id=18364758544493064720 homa.from_client=0
homa.resend.offset=0 homa.resend.length=100"

# 15. IPv6 ACK with all five entries used.
frame "ACK v6: five acks" "
$ETH6
6000 0000 0050 92 40 $C2S6
9c45 0063 00000000 000000 18 00 00 0000 0000 0000 0000000000000002
0005
0000000000000004 7fff
0000000000000006 0001
0000000000000008 0002
000000000000000a 8000
7ffffffffffffffe ffff
" "ipv6.nxt=146 homa.sport=40005 homa.dport=99 homa.sequence=0
homa.reserved.ack=0 homa.type=0x18 homa.doff=0x00 homa.hdr_len=0
homa.reserved.flags=0 homa.reserved.window=0 homa.checksum=0
homa.reserved.urgent=0 homa.sender_id=2 homa.rpc_id=2 homa.from_client=1
homa.ack.num_acks=5 homa.ack.self=2
homa.ack.client_id=4,6,8,10,9223372036854775806
homa.ack.server_port=32767,1,2,32768,65535"

# Every value-carrying homa.* field, plus the IP layer's protocol number.
FIELDS=(ip.proto ipv6.nxt homa.sport homa.dport homa.sequence homa.reserved.ack
	homa.type homa.doff homa.hdr_len homa.reserved.flags homa.reserved.window
	homa.checksum homa.reserved.urgent homa.sender_id homa.rpc_id homa.from_client
	homa.tcp_hijacked homa.tcp_urgent
	homa.data.message_length homa.data.incoming homa.data.cutoff_version
	homa.data.retransmit homa.data.pad homa.data.num_segments homa.data.offset
	homa.data.length homa.payload homa.ack.client_id homa.ack.server_port
	homa.ack.self homa.ack.num_acks homa.grant.offset homa.grant.priority
	homa.grant.resend_all homa.resend.offset homa.resend.length
	homa.resend.priority homa.cutoffs.unsched_cutoff homa.cutoffs.version
	homa.padding homa.reassembled.length)

# Value fields deliberately not compared: the hidden homa.port (sport and
# dport again, for 'homa.port == N' filters), and what analysis and
# reassembly add (both off below; behaviour.sh covers them).
NOT_COMPARED='^homa\.(port|analysis\..*|segment(\..*)?|reassembled_in|reassembled\.data)$'

# ---------------------------------------------------------------------------
# Build the capture (classic pcap, little-endian, LINKTYPE_ETHERNET).
# ---------------------------------------------------------------------------
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) \
	$(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
pcap="$WS_WORK/in/handwritten.pcap"
{
	printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00'	# magic, version 2.4
	printf '%b' "$(le32 0)$(le32 0)$(le32 65535)$(le32 1)"
	for i in "${!hexes[@]}"; do
		hex="$(tr -d ' \n\t' <<<"${hexes[$i]}")"
		if [[ ! "$hex" =~ ^([0-9a-f]{2})+$ ]]; then
			echo "error: frame $((i + 1)) (${labels[$i]}) is not whole hex bytes" >&2
			exit 1
		fi
		n=$((${#hex} / 2))
		printf '%b' "$(le32 $((1764806400 + i)))$(le32 0)$(le32 $n)$(le32 $n)"
		# shellcheck disable=SC2001
		printf '%b' "$(sed 's/../\\x&/g' <<<"$hex")"
	done
} > "$pcap"
chmod a+r "$pcap"

fargs=()
for f in "${FIELDS[@]}"; do fargs+=(-e "$f"); done
# Analysis and reassembly off: the frames are unrelated, and this test is
# about decoding.  GSO detection from 64 bytes (frame 3 is short); IPv4
# header checksums verified, so the hand-written IP layer is right too.
fail=0
if ! why="$(ws_tshark "$WS_WORK/out" -n -r "$pcap" -o homa.analyze_rpcs:FALSE \
	-o homa.reassemble:FALSE -o homa.gso_min_len:64 -o ip.check_checksum:TRUE \
	-T fields -E 'separator=|' -E occurrence=a -E aggregator=, "${fargs[@]}" \
	-e ip.checksum.status -e _ws.malformed -e _ws.expert.message)"; then
	echo "not ok 1 - tshark decodes the hand-written capture"
	echo "$why"
	exit 1
fi
echo "ok 1 - tshark decodes the hand-written capture"
nframes="$(wc -l < "$WS_WORK/out")"
if [[ "$nframes" != "${#hexes[@]}" ]]; then
	echo "not ok 2 - one decoded line per frame"
	echo "# expected ${#hexes[@]} lines, got $nframes"
	exit 1
fi
echo "ok 2 - one decoded line per frame"

# Every value-carrying homa.* field the plugin registers is compared here (a
# field added later must get hand-written expectations, or a reason above).
if ! why="$(ws_tshark "$WS_WORK/registered" -G fields)"; then
	echo "not ok 3 - every registered homa.* value field is compared"
	echo "$why"
	exit 1
fi
uncovered=""
while IFS= read -r f; do
	[[ "$f" =~ $NOT_COMPARED ]] && continue
	[[ " ${FIELDS[*]} " == *" $f "* ]] || uncovered+=" $f"
done < <(awk -F'\t' '$1 == "F" && $3 ~ /^homa\./ && $4 != "FT_NONE" {print $3}' "$WS_WORK/registered")
if [[ -n "$uncovered" ]]; then
	echo "not ok 3 - every registered homa.* value field is compared"
	echo "# not in FIELDS:$uncovered"
	fail=1
else
	echo "ok 3 - every registered homa.* value field is compared"
fi

# 0x... (up to 32 bits) becomes decimal, element by element, so that the
# expectations need not know how wide tshark prints a hex field.
norm() {
	local out="" x
	local -a parts
	IFS=, read -r -a parts <<<"$1"
	for x in "${parts[@]}"; do
		[[ "$x" =~ ^0x[0-9a-fA-F]{1,8}$ ]] && x=$((x))
		out+="${out:+,}$x"
	done
	echo "$out"
}

ncols=${#FIELDS[@]}
case_no=3
i=0
while IFS= read -r line; do
	IFS='|' read -r -d '' -a got < <(printf '%s|\0' "$line") || true
	declare -A want=()
	spec="${wants[$i]%%expert~*}" expert_sub=""
	[[ "${wants[$i]}" == *expert~* ]] && expert_sub="${wants[$i]#*expert~}"
	for kv in $spec; do
		[[ "$kv" == *=* ]] || { echo "error: bad expectation '$kv' of frame $((i + 1))" >&2; exit 1; }
		want["${kv%%=*}"]="${kv#*=}"
	done
	bad=()
	for k in "${!want[@]}"; do
		found=0
		for f in "${FIELDS[@]}"; do [[ "$f" == "$k" ]] && found=1; done
		[[ $found == 1 ]] || { echo "error: $k is not in FIELDS" >&2; exit 1; }
	done
	for ((c = 0; c < ncols; c++)); do
		f="${FIELDS[$c]}"
		g="$(norm "${got[$c]:-}")"
		w="$(norm "${want[$f]:-}")"
		[[ "$g" == "$w" ]] || bad+=("$f: expected '${want[$f]:-}' (spec), dissector says '${got[$c]:-}'")
	done
	cks="${got[$ncols]:-}" malformed="${got[$((ncols + 1))]:-}" expert="${got[$((ncols + 2))]:-}"
	if [[ -n "${want[ip.proto]:-}" && "$cks" != 1 ]]; then
		bad+=("ip.checksum.status: '$cks', not 1 (good): the hand-written IPv4 header is wrong")
	fi
	[[ -z "$malformed" ]] || bad+=("_ws.malformed: '$malformed'")
	if [[ -z "$expert_sub" ]]; then
		[[ -z "$expert" ]] || bad+=("unexpected expert item(s): '$expert'")
	elif [[ "$expert" != *"$expert_sub"* ]]; then
		bad+=("expert items '$expert' lack '$expert_sub'")
	fi
	case_no=$((case_no + 1))
	if [[ ${#bad[@]} == 0 ]]; then
		echo "ok $case_no - frame $((i + 1)) ${labels[$i]}: every field as the spec says"
	else
		echo "not ok $case_no - frame $((i + 1)) ${labels[$i]}: every field as the spec says"
		printf '#   %s\n' "${bad[@]}"
		fail=1
	fi
	unset want
	i=$((i + 1))
done < "$WS_WORK/out"
echo "1..$case_no"
exit $fail
