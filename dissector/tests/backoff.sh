#!/usr/bin/env bash
# backoff.sh - RESENDs backed off after BUSY, read from a capture through
# this dissector (issue 11's "what changed on the wire").
#
# usage: backoff.sh PLUGIN_SO CAPTURE [MIN_RPCS]
#
# The capture holds clients waiting on a slow server (one answer at a time,
# every RPC outstanding for many ticks): the client asks with RESEND, the
# server answers BUSY. From the homa.* fields of every RESEND and BUSY this
# prints, per family, the RPCs, RESENDs and BUSYs and the median time
# between an RPC's k-th and (k+1)-th RESEND, and fails unless:
#   - at least MIN_RPCS RPCs (default 6) of each family present asked
#     more than four times (the capture shows the behaviour at all);
#   - at least 90% of RESENDs drew a BUSY (one per RESEND, same RPC);
#   - the RPCs back off: the median of later gaps (5th and after) is at
#     least twice the shortest first gap of the capture (both families),
#     the RESEND interval itself
#     (before the back-off every gap was resend_interval: the ratio was
#     ~1). Not the first gaps' median: a BUSY that comes late stretches
#     some first gaps (one run had a median of 16.7 ms over IPv6). Keep
#     the RPCs few enough that resend_peer_limit defers none.
# Exit status 0 if all hold, 1 otherwise, 2 on bad usage or a tshark error.
source "$(dirname "$0")/lib.sh"

plugin="${1:-}"
capture="${2:-}"
min_rpcs="${3:-6}"
if [[ -z "$plugin" || -z "$capture" || ! "$min_rpcs" =~ ^[0-9]+$ ]]; then
	echo "usage: backoff.sh PLUGIN_SO CAPTURE [MIN_RPCS]" >&2
	exit 2
fi
if [[ ! -s "$capture" ]]; then
	echo "backoff.sh: capture $capture is missing or empty" >&2
	exit 2
fi
ws_setup "$plugin"
ws_check_plugin
in="$(ws_input "$capture")"
rows="$WS_WORK/rows.tsv"
# 0x12 RESEND, 0x14 BUSY (kernel/homa_wire.h).
if ! ws_tshark "$rows" -r "$in" -Y "homa.type == 0x12 || homa.type == 0x14" \
	-T fields -e frame.time_relative -e homa.type -e homa.rpc_id \
	-e homa.from_client -e homa.sport -e homa.dport -e ip.version \
	-e ipv6.version; then
	exit 2
fi

python3 - "$rows" "$min_rpcs" <<'EOF'
import statistics
import sys

rows_file, min_rpcs = sys.argv[1], int(sys.argv[2])
rpcs = {}      # (family, client port, server port, id) -> [resend times]
busys = {}     # same key -> BUSY count
for line in open(rows_file):
    f = line.rstrip("\n").split("\t")
    if len(f) < 8 or not f[0]:
        continue
    t, typ, rid, from_client = float(f[0]), int(f[1], 0), f[2], f[3]
    sport, dport = int(f[4]), int(f[5])
    fam = 6 if f[7] else 4
    client = from_client in ("1", "True")
    key = (fam, sport, dport, rid) if client else (fam, dport, sport, rid)
    if typ == 0x12 and client:
        rpcs.setdefault(key, []).append(t)
    elif typ == 0x14 and not client:
        busys[key] = busys.get(key, 0) + 1

def first_gaps(fam):
    return [ts[1] - ts[0] for k, v in rpcs.items() if k[0] == fam
            for ts in [sorted(v)] if len(ts) > 1]


# The RESEND interval: the shortest first gap of the whole capture. Both
# families run on the same module one after the other; a slow spell of the
# guest during one family's first RESENDs (one clean-clone CI run: every
# IPv4 first gap 18.7 ms or more, IPv6's from 5.2 ms) must not count as
# that family's interval.
all_first = [g for fam in {k[0] for k in rpcs} for g in first_gaps(fam)]
ok = True
for fam in sorted({k[0] for k in rpcs}):
    keys = [k for k in rpcs if k[0] == fam]
    resends = sum(len(rpcs[k]) for k in keys)
    answered = sum(min(busys.get(k, 0), len(rpcs[k])) for k in keys)
    gaps = {}  # k-th gap -> list of seconds
    for k in keys:
        ts = sorted(rpcs[k])
        for i in range(1, len(ts)):
            gaps.setdefault(i, []).append(ts[i] - ts[i - 1])
    long_rpcs = sum(1 for k in keys if len(rpcs[k]) > 4)
    print(f"# IPv{fam}: {len(keys)} RPCs asked, {resends} RESENDs, "
          f"{answered} answered by BUSY, {long_rpcs} RPCs asked more than "
          f"four times")
    print("# IPv%d: median gap between RESENDs k and k+1 (ms): %s" % (fam,
          ", ".join("%d: %.1f (%d)" % (i, 1000 * statistics.median(g), len(g))
                    for i, g in sorted(gaps.items()) if i <= 12)))
    if long_rpcs < min_rpcs:
        print(f"not ok - IPv{fam}: only {long_rpcs} RPCs asked more than "
              f"four times (want {min_rpcs})")
        ok = False
        continue
    first = min(all_first)
    later = statistics.median([x for i, g in gaps.items() if i >= 5
                               for x in g])
    ratio = later / first if first > 0 else 0.0
    if answered < 0.9 * resends:
        print(f"not ok - IPv{fam}: {answered} of {resends} RESENDs "
              f"answered by BUSY (want 90%)")
        ok = False
    else:
        print(f"ok - IPv{fam}: {answered} of {resends} RESENDs answered by BUSY")
    if ratio < 2:
        print(f"not ok - IPv{fam}: later gaps {1000 * later:.1f} ms are "
              f"{ratio:.2f}x the shortest first {1000 * first:.1f} ms "
              f"of the capture (want >= 2x)")
        ok = False
    else:
        print(f"ok - IPv{fam}: later gaps {1000 * later:.1f} ms are "
              f"{ratio:.2f}x the shortest first {1000 * first:.1f} ms "
              f"of the capture (backed off)")
if not rpcs:
    print("not ok - no RESEND from a client in the capture")
    ok = False
sys.exit(0 if ok else 1)
EOF
