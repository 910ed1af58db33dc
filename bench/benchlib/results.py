"""Reading, checking and summarising benchmark records (one per flow and run)."""
import json
import math
import statistics

from . import cpu
from .suite import FAIRNESS_BOUND, RATIOS, WORKLOADS

MARK = "BENCH-JSON "
REQUIRED = ("run", "workload", "class", "transport", "size", "count", "sent", "answered",
            "verified", "errors", "rpcs_per_s", "goodput_Bps", "p50_us", "p90_us",
            "p99_us", "p999_us", "cdf_us")


class BadInput(Exception):
    """The results cannot be analysed (malformed or missing data)."""


def parse_lab_line(line):
    """The record in a vm/lab output line '[g0] BENCH-JSON {...}', or None."""
    text = line.rstrip("\r\n")
    if text.startswith("[g"):
        text = text.split("] ", 1)[-1]
    if not text.startswith(MARK):
        return None
    try:
        return json.loads(text[len(MARK):])
    except json.JSONDecodeError as e:
        raise BadInput(f"garbled record from the guest: {e}: {text[:120]}")


def load(path):
    """Records of a results.json ({"meta": ..., "records": [...]}); raises BadInput."""
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise BadInput(f"cannot read {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise BadInput(f"{path} is not JSON: {e}")
    if not isinstance(data, dict) or not isinstance(data.get("records"), list):
        raise BadInput(f"{path}: expected an object with a 'records' list")
    for i, r in enumerate(data["records"]):
        if not isinstance(r, dict):
            raise BadInput(f"{path}: record {i} is not an object")
        missing = [k for k in REQUIRED if k not in r]
        if missing:
            raise BadInput(f"{path}: record {i} lacks {', '.join(missing)}")
        for k in REQUIRED:
            if k not in ("workload", "class", "transport", "cdf_us") and \
                    not isinstance(r[k], (int, float)):
                raise BadInput(f"{path}: record {i}: '{k}' is not a number")
    return data


def record_problems(r):
    """Why a record does not count as a clean run ([] if it does)."""
    where = f"run {r['run']} {r['workload']}/{r['class']}/{r['transport']}"
    p = []
    if r.get("error"):
        p.append(f"{where}: {r['error']}")
    if r["errors"] != 0:
        p.append(f"{where}: {r['errors']} error(s) (rpc_errors {r.get('rpc_errors')}, "
                 f"bad_payload {r.get('bad_payload')}, unanswered {r.get('unanswered')})")
    if r["answered"] != r["sent"] or r["verified"] != r["answered"]:
        p.append(f"{where}: sent {r['sent']}, answered {r['answered']}, verified {r['verified']}")
    if r["count"] <= 0:
        p.append(f"{where}: no RPC completed in the measurement window")
    lat = [r[k] for k in ("p50_us", "p90_us", "p99_us", "p999_us")]
    if not all(isinstance(x, (int, float)) and x > 0 for x in lat):
        p.append(f"{where}: latency percentiles not positive: {lat}")
    elif not lat[0] <= lat[1] <= lat[2] <= lat[3]:
        p.append(f"{where}: percentiles out of order: p50..p99.9 = {lat}")
    if not r["goodput_Bps"] > 0 or not r["rpcs_per_s"] > 0:
        p.append(f"{where}: goodput {r['goodput_Bps']} B/s, {r['rpcs_per_s']} RPC/s")
    if r.get("samples_lost"):
        p.append(f"{where}: latency samples lost (out of memory)")
    return p


def missing_records(records, expected):
    """Records of @expected ((run, workload, class, transport) set) not in @records."""
    seen = {(r["run"], r["workload"], r["class"], r["transport"]) for r in records}
    return [f"missing record: run {k[0]} {k[1]}/{k[2]}/{k[3]}"
            for k in sorted(expected - seen)]


def suite_problems(records):
    """Problems of the whole set: bad or duplicate records, a transport missing."""
    p = []
    for r in records:
        p += record_problems(r)
    seen = {}
    for r in records:
        key = (r["run"], r["workload"], r["class"], r["transport"])
        seen[key] = seen.get(key, 0) + 1
    p += [f"duplicate record {k}" for k, n in seen.items() if n > 1]
    for w in {r["workload"] for r in records}:
        ts = {r["transport"] for r in records if r["workload"] == w}
        if ts != {"homa", "tcp"}:
            p.append(f"workload {w}: only {', '.join(sorted(ts))} ran")
    if not records:
        p.append("no records at all")
    return p


def ratio(records, workload, cls, metric):
    """Per-run Homa/TCP ratios of @metric, paired by run; dict with the spread."""
    by = {}
    for r in records:
        if r["workload"] == workload and r["class"] == cls:
            by.setdefault(r["run"], {})[r["transport"]] = r
    per_run = []
    for run in sorted(by):
        h, t = by[run].get("homa"), by[run].get("tcp")
        if not h or not t or record_problems(h) or record_problems(t):
            continue    # only pairs of clean runs count
        if t[metric] > 0 and h[metric] > 0:
            per_run.append((run, h[metric] / t[metric]))
    values = [v for _, v in per_run]
    return {
        "runs": len(values),
        "median": statistics.median(values) if values else math.nan,
        "min": min(values) if values else math.nan,
        "max": max(values) if values else math.nan,
        "per_run": per_run,
    }


def median_of(records, workload, cls, transport, metric):
    vals = [r[metric] for r in records if r["workload"] == workload and
            r["class"] == cls and r["transport"] == transport and not record_problems(r)]
    return statistics.median(vals) if vals else math.nan


def fairness(records, transport):
    """Per-run stream/long p99 over echo_1MB/long p50 of @transport: [(run, x)]."""
    by = {}
    for r in records:
        if r["transport"] == transport and r["class"] == "long" and \
                r["workload"] in ("stream", "echo_1MB") and not record_problems(r):
            by.setdefault(r["run"], {})[r["workload"]] = r
    return [(run, by[run]["stream"]["p99_us"] / by[run]["echo_1MB"]["p50_us"])
            for run in sorted(by) if len(by[run]) == 2 and by[run]["echo_1MB"]["p50_us"] > 0]


def fairness_lines(records):
    """The fairness check of summary.txt: Homa's bound, TCP's figure beside it."""
    lines = ["", f"Fairness: p99 of 1 MB RPCs under a stream of 20 KB ones (8 outstanding), "
                 f"over the median 1 MB echo of the same run; bound {FAIRNESS_BOUND:g} for Homa:"]
    for t in ("homa", "tcp"):
        per = fairness(records, t)
        if not per:
            lines.append(f"  {t:4s}  no stream runs in these results")
            continue
        worst = max(x for _, x in per)
        verdict = ("within the bound" if worst <= FAIRNESS_BOUND else "OVER THE BOUND") \
            if t == "homa" else "(for comparison)"
        lines.append(f"  {t:4s}  worst {worst:.2f}, median {statistics.median(x for _, x in per):.2f}"
                     f" over {len(per)} run(s): {verdict}")
    return lines


def summary(records, cpu_samples=()):
    """The three headline ratios and per-transport medians; (text, dict)."""
    out = {"ratios": {}, "medians": {}}
    lines = ["Homa vs TCP: each ratio is the median over runs of the per-run Homa/TCP",
             "ratio (Homa and TCP alternate within one boot); [min .. max] over runs.", ""]
    for key, w, c, metric, desc in RATIOS:
        r = ratio(records, w, c, metric)
        out["ratios"][key] = r
        lines.append(f"{desc}: {r['median']:.3f}  [min {r['min']:.3f} .. max {r['max']:.3f}]"
                     f"  over {r['runs']} run(s)")
        lines.append("    per run: " + (", ".join(f"run {n}: {v:.3f}" for n, v in r["per_run"])
                                       or "none"))
    lines.append("")
    lines.append("Medians over runs (per transport):")
    for w in WORKLOADS:
        for f in w.flows:
            for t in ("homa", "tcp"):
                m = {k: median_of(records, w.name, f.cls, t, k)
                     for k in ("p50_us", "p99_us", "rpcs_per_s", "goodput_Bps")}
                out["medians"][f"{w.name}/{f.cls}/{t}"] = m
                lines.append(f"  {w.name:13s} {f.cls:5s} {t:4s}  p50 {m['p50_us']:10.1f} us"
                             f"  p99 {m['p99_us']:10.1f} us  {m['rpcs_per_s']:9.1f} RPC/s"
                             f"  {m['goodput_Bps'] / 1e6:8.2f} MB/s")
    lines += fairness_lines(records)
    lines += cpu.summary_lines(cpu_samples, records, WORKLOADS)
    return "\n".join(lines) + "\n", out
