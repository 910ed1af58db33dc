#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host side of the receive-memory tests (issue 10, items 7 and 10), run
# as a `vm/lab run --host` step; prints TAP. Packets go into guest 0's tap
# from the lab's crafter address. Frames are made from one homa-pktgen
# DATA frame (1 byte of payload) with only the RPC id and the segment
# offset changed (Homa has no checksum; the IPv4 header checksum does not
# cover them).
#
#   rcvmem_host.sh PKTGEN seg1 FAMILY PORT SEGS PPS
#       40 messages with distinct ids (20 of 1024 bytes, 20 of 65536),
#       each sent as SEGS one-byte segments at offsets 0, 2, 4, ... (never
#       complete), round robin, PPS frames a second; at least 75% must
#       reach Homa in the guest.
#   rcvmem_host.sh PKTGEN refuse FAMILY PORT SECONDS PPS
#       One message of 8192 bytes as 4200 one-byte segments (offsets
#       0..4199) at PPS, then the segments at 4100..4199 again and again
#       at AGAIN_PPS (200): packets its RPC refuses (over its memory
#       bound), until the guest's timer has run 3 x timeout_ticks ticks
#       (at most SECONDS). While they keep coming the RPC must time out
#       (the guest's timeouts rise) and the refused packets must be
#       counted (drop_msg_mem): refused packets do not reset its silence.
set -u
PKTGEN=$1
MODE=$2
FAMILY=$3
PORT=$4
TAP=${HOMALAB_TAP0:?run me as a vm/lab --host step}
DIR=${HOMALAB_RUN_DIR:-/tmp}
# RPC ids of the crafted packets: far from the guest's own (which start at 2).
ID0=$((0x52434d454d000000 + FAMILY * 0x1000000))
ID1=$((ID0 + 0x800000))
# Offset and message length in the template frame, patched per frame.
MARK=195939070
MARKLEN=212710925
# Rate of the refused packets in refuse mode (see there).
AGAIN_PPS=200

. "$(dirname "$0")/host_lib.sh"

# build TEMPLATE OUT ID0 LENGTHS FIRST COUNT STEP: messages with ids ID0,
# ID0 + 2, ... and the lengths in LENGTHS (comma-separated), COUNT
# one-byte segments each at offsets FIRST, FIRST + STEP, ..., sent round
# robin (segment j of every message, then segment j + 1), so that all of
# them grow at once.
build() {
	python3 - "$MARK" "$MARKLEN" "$@" <<'EOF'
import struct, sys
mark, marklen = int(sys.argv[1]), int(sys.argv[2])
tmpl, out = sys.argv[3], sys.argv[4]
id0 = int(sys.argv[5])
lengths = [int(x) for x in sys.argv[6].split(',')]
first, count, step = (int(a) for a in sys.argv[7:10])
data = open(tmpl, 'rb').read()
ghdr, rec = data[:24], data[24:]
incl = struct.unpack('<I', rec[8:12])[0]
frame = bytearray(rec[16:16 + incl])

def where(b):
    found, p = [], frame.find(b)
    while p >= 0:
        found.append(p)
        p = frame.find(b, p + 1)
    return found

idpos = where(struct.pack('>Q', id0))
offpos = where(struct.pack('>I', mark))
lenpos = where(struct.pack('>I', marklen))
assert len(idpos) == 1 and offpos and len(lenpos) == 1
with open(out, 'wb') as f:
    f.write(ghdr)
    for j in range(count):
        for i, length in enumerate(lengths):
            frame[idpos[0]:idpos[0] + 8] = struct.pack('>Q', id0 + 2 * i)
            frame[lenpos[0]:lenpos[0] + 4] = struct.pack('>I', length)
            for p in offpos:
                frame[p:p + 4] = struct.pack('>I', first + j * step)
            f.write(rec[:16])
            f.write(frame)
EOF
}

# template FILE ID: one DATA frame, 1 byte of payload, marked offset and
# message length (both patched by build()).
template() {
	"$PKTGEN" -"$FAMILY" --dport "$PORT" --sport 40300 --id "$2" \
		--msg-size 1 --msglen "$MARKLEN" --offset "$MARK" -w "$1" > /dev/null 2>&1
}

case "$MODE" in
seg1)
	SEGS=$5
	PPS=$6
	echo "1..3"
	tmpl=$DIR/rcvmem-tmpl$FAMILY.pcap
	pcap=$DIR/rcvmem-seg1-$FAMILY.pcap
	# 20 messages of 1024 bytes (they reach their own bound first) and
	# 20 of 65536 bytes (they take the socket to its budget).
	lengths=$(python3 -c 'print(",".join(["1024"] * 20 + ["65536"] * 20))')
	count=$((40 * SEGS))
	if template "$tmpl" "$ID0" &&
	   build "$tmpl" "$pcap" "$ID0" "$lengths" 0 "$SEGS" 2; then
		echo "ok 1 seg1: $count one-byte segments of 40 messages written (IPv$FAMILY)"
	else
		echo "not ok 1 seg1: $count one-byte segments of 40 messages written (IPv$FAMILY)"
	fi
	inject_counted "$pcap" "$count" "$PPS" seg1 "frames injected"
	;;
refuse)
	SECONDS_=$5
	PPS=$6
	echo "1..4"
	tmpl=$DIR/rcvmem-tmplr$FAMILY.pcap
	fill=$DIR/rcvmem-fill$FAMILY.pcap
	again=$DIR/rcvmem-again$FAMILY.pcap
	if template "$tmpl" "$ID1" &&
	   build "$tmpl" "$fill" "$ID1" 8192 0 4200 1 &&
	   build "$tmpl" "$again" "$ID1" 8192 4100 100 1; then
		echo "ok 1 refuse: frames written (IPv$FAMILY)"
	else
		echo "not ok 1 refuse: frames written (IPv$FAMILY)"
	fi
	timeout=$("$HOMALAB_LAB" exec 0 "cat /proc/sys/net/homa/timeout_ticks")
	t0=$(guest_metric timeouts)
	m0=$(guest_metric drop_msg_mem)
	r0=$(guest_metric timer_runs)
	s0=$(date +%s)
	if "$PKTGEN" -r "$fill" -i "$TAP" --pps "$PPS" > /dev/null; then
		echo "ok 2 refuse: 4200 segments injected (IPv$FAMILY)"
	else
		echo "not ok 2 refuse: 4200 segments injected (IPv$FAMILY)"
	fi
	# Silence is counted in the guest's timer ticks, and a guest busy
	# with a flood ticks far less often than every millisecond: the debug
	# kernel's timer ran 48 ticks a second, then 5, while refused packets
	# came at 3000 a second, and a fixed 3 s wait saw no timeout with old
	# and new modules alike. So the refused packets come at AGAIN_PPS (20
	# per timeout at the default timeout_ticks of 100 and ticks of about
	# 1 ms: plenty to reset the silence if they did) until the guest's
	# timer has run three timeouts' worth of ticks since the first packet
	# (its first segments are kept, the rest refused), at most SECONDS.
	loops=$((SECONDS_ * AGAIN_PPS / 100))
	"$PKTGEN" -r "$again" -i "$TAP" --pps "$AGAIN_PPS" -l "$loops" > /dev/null &
	pid=$!
	need=$((3 * ${timeout:-100}))
	r1=$r0
	while kill -0 "$pid" 2> /dev/null; do
		r1=$(guest_metric timer_runs)
		[ -n "$r1" ] && [ -n "$r0" ] && [ $((r1 - r0)) -ge "$need" ] && break
		sleep 1
	done
	t1=$(guest_metric timeouts)
	m1=$(guest_metric drop_msg_mem)
	coming=no
	if kill -0 "$pid" 2> /dev/null; then
		coming=yes
		kill "$pid"
	fi
	wait "$pid" 2> /dev/null
	echo "# guest timer: $((r1 - r0)) ticks in $(($(date +%s) - s0)) s (timeout_ticks $timeout); refused packets still coming: $coming"
	echo "# timeouts $t0 -> $t1, drop_msg_mem $m0 -> $m1"
	if [ "$coming" = yes ] && [ -n "$t0" ] && [ -n "$t1" ] &&
	   [ "$t1" -gt "$t0" ]; then
		echo "ok 3 refuse: the RPC times out while its refused packets keep coming (IPv$FAMILY)"
	else
		echo "not ok 3 refuse: the RPC times out while its refused packets keep coming (IPv$FAMILY)"
	fi
	if [ -n "$m0" ] && [ -n "$m1" ] && [ "$m1" -gt "$m0" ]; then
		echo "ok 4 refuse: refused packets counted in drop_msg_mem (IPv$FAMILY)"
	else
		echo "not ok 4 refuse: refused packets counted in drop_msg_mem (IPv$FAMILY)"
	fi
	;;
*)
	echo "usage: $0 PKTGEN seg1 FAMILY PORT SEGS PPS | refuse FAMILY PORT SECONDS PPS" >&2
	exit 2
	;;
esac
