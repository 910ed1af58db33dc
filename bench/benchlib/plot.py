"""Latency CDFs, Homa and TCP on the same axes, one panel per workload."""
import math

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .suite import WORKLOADS  # noqa: E402

COLOURS = {"homa": "tab:blue", "tcp": "tab:orange"}
STYLES = {"short": "-", "long": "--"}


def _panels(records):
    """Workloads in suite order, then any others the records hold."""
    names = [w.name for w in WORKLOADS if any(r["workload"] == w.name for r in records)]
    names += sorted({r["workload"] for r in records} - set(names))
    titles = {w.name: w.title for w in WORKLOADS}
    return [(n, titles.get(n, n)) for n in names]


def plot(records, path):
    """Writes the PNG: every run is one thin line (so the spread shows)."""
    panels = _panels(records)
    cols = 2 if len(panels) > 1 else 1
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 4.2 * rows), squeeze=False)
    for ax, (name, title) in zip(axes.flat, panels):
        labelled = set()
        for r in sorted(records, key=lambda r: (r["transport"], r["class"], r["run"])):
            if r["workload"] != name or r["count"] <= 0:
                continue
            pts = [(v, p / 100.0) for p, v in r["cdf_us"] if v > 0]
            if not pts:
                continue
            label = f"{'Homa' if r['transport'] == 'homa' else 'TCP'} {r['class']} ({r['size']} B)"
            ax.plot([v for v, _ in pts], [q for _, q in pts], STYLES.get(r["class"], ":"),
                    color=COLOURS.get(r["transport"], "grey"), alpha=0.7, linewidth=1.2,
                    label=None if label in labelled else label)
            labelled.add(label)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.0)
        ax.set_xlabel("RPC latency (us, log scale)")
        ax.set_ylabel("fraction of RPCs")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        if labelled:
            ax.legend(fontsize=8, loc="lower right")
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle("Homa vs TCP in the QEMU lab (TCG): latency CDF, one line per run", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
