"""CPU cost of each run: /proc/stat of both guests read before and after it.

bench/run puts a step on each guest before and after every client run; the
step prints 'BENCH-CPU RUN WORKLOAD TRANSPORT PHASE' and the guest's
aggregate 'cpu' line of /proc/stat (USER_HZ ticks). The busy time of a run
is the growth of user + nice + system + irq + softirq + steal on both
guests together (client and server), whatever ran there: the transport's
work in the kernel, the benchmark's own, and the guests' background.
"""
import math
import statistics

MARK = "BENCH-CPU "
USER_HZ = 100
# Fields of the 'cpu' line after the name, in /proc/stat's order.
FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
BUSY = ("user", "nice", "system", "irq", "softirq", "steal")


class BadInput(Exception):
    """A garbled BENCH-CPU line."""


def command(run, workload, transport, phase):
    """The guest shell step that prints one sample."""
    return f'echo "{MARK}{run} {workload} {transport} {phase} $(head -1 /proc/stat)"'


def parse_lab_line(line):
    """The sample in a vm/lab line '[gN] BENCH-CPU ...', or None; raises BadInput."""
    text = line.rstrip("\r\n")
    guest = None
    if text.startswith("[g") and "] " in text:
        head, text = text.split("] ", 1)
        guest = head[2:]
    if not text.startswith(MARK):
        return None
    words = text[len(MARK):].split()
    try:
        run, workload, transport, phase, name = words[:5]
        ticks = [int(w) for w in words[5:5 + len(FIELDS)]]
        if name != "cpu" or len(ticks) != len(FIELDS) or phase not in ("start", "end") \
                or not guest or not guest.isdigit():
            raise ValueError
        return {"guest": int(guest), "run": int(run), "workload": workload,
                "transport": transport, "phase": phase, **dict(zip(FIELDS, ticks))}
    except ValueError:
        raise BadInput(f"garbled CPU sample from the guest: {text[:120]}")


def costs(samples, records):
    """Per (run, workload, transport): busy seconds of both guests, and per RPC and MB.

    RPCs and bytes are every answered RPC of the run's flows (warm-up and
    drain included, as the CPU window is), bytes both ways. A run without a
    start and an end sample on both guests has no cost.
    """
    marks = {}
    for s in samples:
        key = (s["run"], s["workload"], s["transport"])
        marks.setdefault(key, {})[(s["guest"], s["phase"])] = s
    out = {}
    for key, m in marks.items():
        guests = {g for g, _ in m}
        if len(guests) < 2 or any((g, p) not in m for g in guests for p in ("start", "end")):
            continue
        busy = sum(m[(g, "end")][f] - m[(g, "start")][f] for g in guests for f in BUSY)
        flows = [r for r in records if (r["run"], r["workload"], r["transport"]) == key]
        rpcs = sum(r["answered"] for r in flows)
        nbytes = sum(2 * r["size"] * r["answered"] for r in flows)
        if busy < 0 or rpcs <= 0:
            continue
        sec = busy / USER_HZ
        out[key] = {"busy_s": sec, "us_per_rpc": 1e6 * sec / rpcs,
                    "ms_per_mb": 1e3 * sec / (nbytes / 1e6)}
    return out


def ratio(cost, workload, metric):
    """Per-run Homa/TCP ratio of @metric for @workload: (median, min, max, runs)."""
    vals = []
    for (run, w, t), c in sorted(cost.items()):
        if w == workload and t == "homa" and (run, w, "tcp") in cost:
            tcp = cost[(run, w, "tcp")][metric]
            if tcp > 0:
                vals.append(c[metric] / tcp)
    if not vals:
        return math.nan, math.nan, math.nan, 0
    return statistics.median(vals), min(vals), max(vals), len(vals)


def summary_lines(samples, records, workloads):
    """The CPU section of summary.txt."""
    cost = costs(samples, records)
    lines = ["", "CPU (both guests, busy time over each client run, warm-up included):"]
    if not cost:
        return lines + ["  no CPU samples in these results"]
    med, lo, hi, n = ratio(cost, "echo_1MB", "ms_per_mb")
    lines.append(f"Homa/TCP CPU per 1 MB transferred, 1 MB echo: {med:.3f}  "
                 f"[min {lo:.3f} .. max {hi:.3f}]  over {n} run(s)")
    for w in workloads:
        for t in ("homa", "tcp"):
            cs = [c for (_, cw, ct), c in cost.items() if cw == w.name and ct == t]
            if not cs:
                continue
            rpc = statistics.median(c["us_per_rpc"] for c in cs)
            mb = statistics.median(c["ms_per_mb"] for c in cs)
            lines.append(f"  {w.name:13s} {t:4s}  {rpc:10.1f} us CPU per RPC"
                         f"  {mb:10.1f} ms CPU per MB")
    return lines
