"""The workloads and the lab command that runs them, alternating transports."""
from dataclasses import dataclass

from . import cpu

SERVER_IP4 = "$HOMALAB_G1_IP4"  # guest 1, as its shell reads it (vm/README.md)
PORT = 4000
TRANSPORTS = ("homa", "tcp")
GUEST_BIN = "/opt/homa/homa_bench"


@dataclass(frozen=True)
class Flow:
    cls: str            # "short" or "long"
    size: int           # bytes, request = response
    outstanding: int

    def arg(self):
        return f"{self.cls}:{self.size}:{self.outstanding}"


@dataclass(frozen=True)
class Workload:
    name: str
    flows: tuple
    title: str
    scale: float = 1.0  # run this many times --duration (1 MB RPCs are few per second)


WORKLOADS = (
    Workload("echo_100B", (Flow("short", 100, 1),), "100 B echo, 1 outstanding"),
    Workload("echo_100B_x8", (Flow("short", 100, 8),), "100 B echo, 8 outstanding"),
    Workload("echo_1MB", (Flow("long", 1000000, 2),), "1 MB echo, 2 outstanding", 2.0),
    Workload("mixed", (Flow("short", 100, 1), Flow("long", 1000000, 2)),
             "mixed: 100 B (1 outst.) while 1 MB (2 outst.) flow", 2.0),
    # Fairness: 20 KB messages (long enough to wait for Homa's pacer) keep
    # 8 outstanding, so under SRPT alone a 1 MB message could wait for a
    # gap that never comes.
    Workload("stream", (Flow("short", 20000, 8), Flow("long", 1000000, 1)),
             "stream: 1 MB (1 outst.) under 20 KB (8 outst.)", 2.0),
)

# Fairness bound: p99 of the 1 MB RPCs in "stream", as a multiple of the
# median 1 MB RPC of "echo_1MB" in the same run and transport.
FAIRNESS_BOUND = 4.0

# The three headline ratios: (key, workload, class, metric, description).
RATIOS = (
    ("echo_100B_p50", "echo_100B", "short", "p50_us",
     "Homa/TCP median latency, 100 B echo"),
    ("mixed_short_p99", "mixed", "short", "p99_us",
     "Homa/TCP p99 latency of 100 B RPCs in the mixed workload"),
    ("echo_1MB_goodput", "echo_1MB", "long", "goodput_Bps",
     "Homa/TCP goodput, 1 MB echo"),
)


def order(run):
    """Transport order of a run: alternates so neither always goes first."""
    return TRANSPORTS if run % 2 == 1 else TRANSPORTS[::-1]


def schedule(runs):
    """(run, workload, transport) in execution order."""
    for run in range(1, runs + 1):
        for w in WORKLOADS:
            for t in order(run):
                yield run, w, t


def client_command(run, workload, transport, duration, warmup, stall):
    flows = " ".join(f"--flow {f.arg()}" for f in workload.flows)
    return (f"{GUEST_BIN} client --server {SERVER_IP4} --port {PORT} --proto {transport} "
            f"--workload {workload.name} --run {run} --duration {duration * workload.scale:g} "
            f"--warmup {warmup:g} --stall {stall:g} {flows}")


def cpu_steps(run, workload, transport, phase):
    """vm/lab steps: each guest prints its /proc/stat (cpu.py), before or after a client run."""
    steps = []
    for g in ("0", "1"):
        steps += ["--on", g, cpu.command(run, workload.name, transport, phase)]
    return steps


def lab_command(lab, binary, runs, duration, warmup, stall, timeout, sysctls):
    """The vm/lab run argv: server on guest 1, every client on guest 0.

    @sysctls: {name: value} of net.homa.* set in both guests first.
    """
    argv = [str(lab), "run", "--kernel", "distro", "--guests", "2", "--timeout", str(int(timeout)),
            "--keep-going", "--file", f"{binary}:{GUEST_BIN}"]
    for name, value in sorted(sysctls.items()):
        for g in ("0", "1"):
            argv += ["--on", g, f"echo {int(value)} > /proc/sys/net/homa/{name}"]
    argv += [
        "--on", "1", f"{GUEST_BIN} server --port {PORT} &",
        "--on", "0", f"{GUEST_BIN} wait --server {SERVER_IP4} --port {PORT} --timeout 60",
        "--on", "0", 'for f in /proc/sys/net/homa/*; do echo "BENCH-SYSCTL ${f##*/}=$(cat $f)"; done',
        "--on", "0", 'echo "BENCH-GUEST nproc=$(nproc) kernel=$(uname -r)"']
    for run, w, t in schedule(runs):
        argv += cpu_steps(run, w, t, "start")
        argv += ["--on", "0", client_command(run, w, t, duration, warmup, stall)]
        argv += cpu_steps(run, w, t, "end")
    return argv


def expected_records(runs):
    """Every (run, workload, class, transport) the suite must report."""
    return {(run, w.name, f.cls, t) for run, w, t in schedule(runs) for f in w.flows}
