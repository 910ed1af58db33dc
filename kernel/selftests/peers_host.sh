#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host side of the peer test (issue 10, item 9), run as a `vm/lab run
# --host` step; prints TAP.
#
#   peers_host.sh PKTGEN FAMILY PORT COUNT
#
# From COUNT distinct spoofed source addresses (the lab's SPOOF block:
# $HOMALAB_SPOOF_IP4 or _IP6 plus k, k = 1..COUNT) inject into guest 0, for
# the socket on PORT,
# the packets that need no state because their RPC does not exist:
# RESEND, RPC_UNKNOWN, BUSY and ACK (client to server, even ids, the ACK
# with one ack for another unknown RPC) and NEED_ACK (server to client, odd
# id). The guest must accept them (pkts_rcvd_<TYPE> grows by COUNT each),
# answer each RESEND with UNKNOWN and each NEED_ACK with an ACK
# (pkts_sent_*; the guest routes the block to the crafter, see
# lab/peers_only_with_state.sh), and create no peer for any of them (peers_live does not
# change).
set -u
PKTGEN=$1
FAMILY=$2
PORT=$3
COUNT=$4
TAP=${HOMALAB_TAP0:?run me as a vm/lab --host step}
DIR=${HOMALAB_RUN_DIR:-/tmp}
ID0=$((0x5045455200000000 + FAMILY * 0x1000000))
TYPES="RESEND UNKNOWN BUSY NEED_ACK ACK"

snapshot() {
	"$HOMALAB_LAB" exec 0 "cat /proc/net/homa_metrics" > "$1" 2>/dev/null
}
# metric FILE NAME: the value, or empty if the guest has no such metric.
metric() {
	awk -v n="$2" '$1 == n { print $2 }' "$1"
}
delta() {
	a=$(metric "$1" "$3")
	b=$(metric "$2" "$3")
	if [ -z "$a" ] || [ -z "$b" ]; then
		echo missing
	else
		echo $((b - a))
	fi
}
# src K: the K-th address of the lab's SPOOF block (its base plus K).
src() {
	if [ "$FAMILY" = 4 ]; then
		echo "${HOMALAB_SPOOF_IP4%.*}.$1"
	else
		printf '%s%x\n' "$HOMALAB_SPOOF_IP6" "$1"
	fi
}

echo "1..4"
before=$DIR/peers-before$FAMILY.txt
after=$DIR/peers-after$FAMILY.txt
snapshot "$before"

fail=0
k=1
while [ "$k" -le "$COUNT" ]; do
	s=$(src "$k")
	id=$((ID0 + 4 * k))
	for t in $TYPES; do
		# Client-to-server types carry even ids (unknown server RPCs
		# here); NEED_ACK comes from a server: odd id, for a client
		# RPC the guest does not have.
		tid=$id
		case $t in
		RESEND) extra="--offset 0 --length 1000" ;;
		NEED_ACK) extra="" tid=$((id + 1)) ;;
		ACK) extra="--num_acks 1 --acks[0].id $((id + 2)) --acks[0].port $PORT" ;;
		*) extra="" ;;
		esac
		# shellcheck disable=SC2086
		if ! env "HOMALAB_PEER_IP$FAMILY=$s" \
		    "$PKTGEN" -"$FAMILY" -i "$TAP" --type "$t" --dport "$PORT" \
		    --sport 40300 --id "$tid" $extra > /dev/null 2>"$DIR/peers-pktgen.err"; then
			fail=$((fail + 1))
			sed 's/^/# /' "$DIR/peers-pktgen.err" | head -3
		fi
	done
	k=$((k + 1))
done
if [ "$fail" -eq 0 ]; then
	echo "ok 1 injected $COUNT x ($TYPES) from $COUNT spoofed sources (IPv$FAMILY)"
else
	echo "not ok 1 injected from spoofed sources (IPv$FAMILY): $fail injections failed"
fi

# Let the guest finish with the last packets.
sleep 1
snapshot "$after"

bad=""
for t in $TYPES; do
	d=$(delta "$before" "$after" "pkts_rcvd_$t")
	echo "# pkts_rcvd_$t +$d"
	if [ "$d" = missing ] || [ "$d" -lt "$COUNT" ]; then
		bad="$bad $t"
	fi
done
if [ -z "$bad" ]; then
	echo "ok 2 guest accepted every packet (IPv$FAMILY)"
else
	echo "not ok 2 guest accepted every packet (IPv$FAMILY): short for$bad"
fi

u=$(delta "$before" "$after" pkts_sent_UNKNOWN)
a=$(delta "$before" "$after" pkts_sent_ACK)
echo "# pkts_sent_UNKNOWN +$u, pkts_sent_ACK +$a"
if [ "$u" != missing ] && [ "$a" != missing ] &&
   [ "$u" -ge "$COUNT" ] && [ "$a" -ge "$COUNT" ]; then
	echo "ok 3 RESENDs answered with UNKNOWN and NEED_ACKs with ACK, to the spoofed sources (IPv$FAMILY)"
else
	echo "not ok 3 RESENDs answered with UNKNOWN and NEED_ACKs with ACK, to the spoofed sources (IPv$FAMILY)"
fi

p0=$(metric "$before" peers_live)
p1=$(metric "$after" peers_live)
echo "# peers_live before ${p0:-missing}, after ${p1:-missing}"
if [ -n "$p0" ] && [ -n "$p1" ] && [ "$p0" -eq "$p1" ]; then
	echo "ok 4 no peer created by packets that create no state (IPv$FAMILY)"
else
	echo "not ok 4 no peer created by packets that create no state (IPv$FAMILY)"
fi
