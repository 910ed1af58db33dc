#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host side of the remote resource-limit tests (issue 10, items 5 and 6),
# run as a `vm/lab run --host` step; prints TAP. Packets go into guest 0's
# tap from the lab's crafter address.
#
#   limits_host.sh PKTGEN stall FAMILY PORT BPAGES
#       One DATA packet (1 byte of payload) that claims a message of
#       BPAGES bpages, the whole pool of the server on PORT; then silence.
#   limits_host.sh PKTGEN flood FAMILY PORT COUNT PPS
#       COUNT DATA packets, each with its own (even) RPC id, claiming a
#       1,000,000-byte message (more than a small pool holds), 1 byte of
#       payload each, PPS a second (at top speed the guest's NIC drops
#       most of them); at least 75% must reach Homa in the guest. The
#       pcap is made from a homa-pktgen frame with only the id changed
#       (Homa has no checksum; the IPv4 header checksum does not cover it).
set -u
PKTGEN=$1
MODE=$2
FAMILY=$3
PORT=$4
ARG=$5
PPS=${6:-10000}
TAP=${HOMALAB_TAP0:?run me as a vm/lab --host step}
DIR=${HOMALAB_RUN_DIR:-/tmp}
# RPC ids of the crafted packets: far from the guest's own (which start at 2).
ID0=$((0x4c494d4954000000 + FAMILY * 0x1000000))

. "$(dirname "$0")/host_lib.sh"

case "$MODE" in
stall)
	echo "1..2"
	before=$(guest_metric pkts_rcvd_DATA)
	if "$PKTGEN" -"$FAMILY" -i "$TAP" --dport "$PORT" --sport 40100 \
		--id "$ID0" --msg-size 1 --msglen $((ARG * 65536)) > /dev/null; then
		echo "ok 1 stall: bogus DATA injected (IPv$FAMILY)"
	else
		echo "not ok 1 stall: bogus DATA injected (IPv$FAMILY)"
	fi
	after=$(guest_metric pkts_rcvd_DATA)
	echo "# pkts_rcvd_DATA $before -> $after"
	if [ -n "$before" ] && [ -n "$after" ] && [ "$after" -gt "$before" ]; then
		echo "ok 2 stall: guest received the bogus DATA (IPv$FAMILY)"
	else
		echo "not ok 2 stall: guest received the bogus DATA (IPv$FAMILY)"
	fi
	;;
flood)
	echo "1..3"
	tmpl=$DIR/limits-tmpl$FAMILY.pcap
	pcap=$DIR/limits-flood$FAMILY.pcap
	if "$PKTGEN" -"$FAMILY" --dport "$PORT" --sport 40200 --id "$ID0" \
		--msg-size 1 --msglen 1000000 -w "$tmpl" > /dev/null 2>&1 &&
	   python3 - "$tmpl" "$pcap" "$ID0" "$ARG" <<'EOF'
import struct, sys
tmpl, out, id0, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
data = open(tmpl, 'rb').read()
ghdr, rec = data[:24], data[24:]
incl = struct.unpack('<I', rec[8:12])[0]
frame = bytearray(rec[16:16 + incl])
pos = frame.find(struct.pack('>Q', id0))
assert pos > 0 and frame.find(struct.pack('>Q', id0), pos + 1) < 0
with open(out, 'wb') as f:
    f.write(ghdr)
    for i in range(count):
        frame[pos:pos + 8] = struct.pack('>Q', id0 + 2 * i)
        f.write(rec[:16])
        f.write(frame)
EOF
	then
		echo "ok 1 flood: $ARG frames with distinct ids written (IPv$FAMILY)"
	else
		echo "not ok 1 flood: $ARG frames with distinct ids written (IPv$FAMILY)"
	fi
	inject_counted "$pcap" "$ARG" "$PPS" flood "$ARG DATA injected"
	;;
*)
	echo "usage: $0 PKTGEN stall FAMILY PORT BPAGES | flood FAMILY PORT COUNT [PPS]" >&2
	exit 2
	;;
esac
