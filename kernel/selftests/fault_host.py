#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host side of the Homa fault tests (run as a `vm/lab run --host` step).

It works in the lab's namespace, on the ingress of the guests' taps
(tap0: what guest 0 sends, tap1: what guest 1 sends), with tc u32
filters whose action is a mirred redirect (drop) or mirror (count) to
an empty bridge `fbh`. The debug guest kernel has netem but no
classifiers, so exact drops ("the first transmission of the last packet
of a 3003-byte response") are made here.

  fault_host.py drops          install the deterministic drops (table DROPS)
  fault_host.py check-drops    KTAP: every deterministic drop happened
  fault_host.py count          replace the drops by counters of the RESEND
                               and ACK packets guest 0 puts on the wire
  fault_host.py check-lost     KTAP: guest 0 sent more RESENDs / ACKs than
                               reached the wire (netem in guest 0 lost some)
  fault_host.py clear          remove everything

Both guests must run with net.homa.max_gso_size=1100, so every DATA
packet carries one segment: 1024 message bytes (IPv4) or 1004 (IPv6).
The lengths below must match homa_test_loss.c (the det tests).
"""
import os
import re
import subprocess
import sys

NS = os.environ.get("HOMALAB_NETNS", "")
TAP = {0: os.environ.get("HOMALAB_TAP0", "tap0"), 1: os.environ.get("HOMALAB_TAP1", "tap1")}
BH = "fbh"
BASE_FILE = os.path.join(os.environ.get("HOMALAB_RUN_DIR", "/tmp"), "fault_count_base")
DATA, RESEND, ACK = 0x10, 0x12, 0x18

# (name, family, tap that sees the packet, message length, seg offset)
# tap 0 carries requests (guest 0 is the client), tap 1 responses.
DROPS = [
    ("v4 request only packet", 4, 0, 700, 0),
    ("v4 request first packet", 4, 0, 3000, 0),
    ("v4 request last packet", 4, 0, 3001, 2048),
    ("v4 response only packet", 4, 1, 701, 0),
    ("v4 response first packet", 4, 1, 3002, 0),
    ("v4 response last packet", 4, 1, 3003, 2048),
    ("v4 200000 request first packet", 4, 0, 200000, 0),
    ("v4 200000 request middle packet", 4, 0, 200000, 102400),
    ("v4 200000 response last packet", 4, 1, 200000, 199680),
    ("v4 1000000 request middle packet", 4, 0, 1000000, 512000),
    ("v4 1000000 response last packet", 4, 1, 1000000, 999424),
    ("v6 request only packet", 6, 0, 702, 0),
    ("v6 request first packet", 6, 0, 3004, 0),
    ("v6 request last packet", 6, 0, 3005, 2008),
    ("v6 response only packet", 6, 1, 703, 0),
    ("v6 response first packet", 6, 1, 3006, 0),
    ("v6 response last packet", 6, 1, 3007, 2008),
    ("v6 200001 request first packet", 6, 0, 200001, 0),
    ("v6 200001 response last packet", 6, 1, 200001, 199796),
    ("v6 999999 response last packet", 6, 1, 999999, 999984),
]


def tc(*args, check=True):
    cmd = ["tc"] + (["-n", NS] if NS else []) + list(args)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and r.returncode != 0:
        sys.exit(f"fault_host: {' '.join(cmd)} failed: {r.stdout}")
    return r.stdout


def ip(*args, check=True):
    cmd = ["ip"] + (["-n", NS] if NS else []) + list(args)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and r.returncode != 0:
        sys.exit(f"fault_host: {' '.join(cmd)} failed: {r.stdout}")


def base():
    ip("link", "del", BH, check=False)
    ip("link", "add", BH, "type", "bridge")
    ip("link", "set", BH, "up")  # up, no ports: what it gets is freed quietly
    for t in TAP.values():
        tc("qdisc", "del", "dev", t, "ingress", check=False)
        tc("qdisc", "add", "dev", t, "ingress")


def homa_match(family, fields):
    """u32 match arguments: protocol 146 plus (offset in the Homa header, size, value)."""
    h = 20 if family == 4 else 40
    args = ["match", "ip" if family == 4 else "ip6", "protocol", "146", "0xff"]
    for off, size, value in fields:
        kind = {1: "u8", 2: "u16", 4: "u32"}[size]
        mask = {1: "0xff", 2: "0xffff", 4: "0xffffffff"}[size]
        args += ["match", kind, hex(value), mask, "at", str(h + off)]
    return args


def add_filter(tap, family, pref, fields, action):
    tc("filter", "add", "dev", TAP[tap], "parent", "ffff:", "protocol",
       "ip" if family == 4 else "ipv6", "pref", str(pref), "u32",
       *homa_match(family, fields), "action", "mirred", "egress", action, "dev", BH)


def filter_counts(tap):
    """{pref: packets} of the filters on a tap's ingress."""
    out = tc("-s", "filter", "show", "dev", TAP[tap], "ingress")
    counts, pref = {}, None
    for line in out.splitlines():
        m = re.search(r"pref (\d+) u32", line)
        if m:
            pref = int(m.group(1))
        m = re.search(r"Sent \d+ bytes (\d+) pkt", line)
        if m and pref is not None:
            counts[pref] = counts.get(pref, 0) + int(m.group(1))
    return counts


def guest_metrics(g):
    lab = os.environ["HOMALAB_LAB"]
    r = subprocess.run([lab, "exec", str(g), "cat /proc/net/homa_metrics"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit(f"fault_host: reading guest {g}'s metrics failed: {r.stdout}")
    m = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            m[parts[0]] = int(parts[1])
    return m


def ktap(results):
    print("KTAP version 1")
    print(f"1..{len(results)}")
    bad = 0
    for i, (ok, name) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
        bad += not ok
    return 1 if bad else 0


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "drops":
        base()
        for i, (name, fam, tap, length, off) in enumerate(DROPS):
            # DATA, this message length, this segment, first transmission.
            add_filter(tap, fam, 10 + i,
                       [(11, 1, DATA), (28, 4, length), (48, 1, 0), (52, 4, off)],
                       "redirect")
        print(f"fault_host: {len(DROPS)} deterministic drops installed")
        return 0
    if what == "check-drops":
        counts = {**filter_counts(0), **filter_counts(1)}
        res = []
        for i, (name, fam, tap, length, off) in enumerate(DROPS):
            n = counts.get(10 + i, 0)
            print(f"# dropped {name} ({length} bytes, offset {off}): {n} packet(s)")
            res.append((n >= 1, f"dropped: {name}"))
        return ktap(res)
    if what == "count":
        base()
        for fam in (4, 6):
            add_filter(0, fam, 100 + fam, [(11, 1, RESEND)], "mirror")
            add_filter(0, fam, 200 + fam, [(11, 1, ACK)], "mirror")
        m = guest_metrics(0)
        with open(BASE_FILE, "w") as f:
            f.write(f"{m.get('pkts_sent_RESEND', 0)} {m.get('pkts_sent_ACK', 0)}\n")
        print("fault_host: counting guest 0's RESEND and ACK packets")
        return 0
    if what == "check-lost":
        counts = filter_counts(0)
        wire_resend = counts.get(104, 0) + counts.get(106, 0)
        wire_ack = counts.get(204, 0) + counts.get(206, 0)
        m = guest_metrics(0)
        with open(BASE_FILE) as f:
            base_resend, base_ack = (int(x) for x in f.read().split())
        sent_resend = m.get("pkts_sent_RESEND", 0) - base_resend
        sent_ack = m.get("pkts_sent_ACK", 0) - base_ack
        print(f"# guest 0 sent {sent_resend} RESENDs and {sent_ack} ACKs since the counters "
              f"were set up; the wire saw {wire_resend} and {wire_ack}")
        # 0 on the wire means the counting filter never matched (or its output
        # was not parsed), not that everything was lost: both must be seen.
        return ktap([(0 < wire_resend < sent_resend,
                      "some RESENDs were lost (and the RPCs still completed)"),
                     (0 < wire_ack < sent_ack,
                      "some ACKs were lost (and the RPCs still completed)")])
    if what == "clear":
        for t in TAP.values():
            tc("qdisc", "del", "dev", t, "ingress", check=False)
        ip("link", "del", BH, check=False)
        return 0
    sys.exit("usage: fault_host.py drops|check-drops|count|check-lost|clear")


if __name__ == "__main__":
    sys.exit(main())
