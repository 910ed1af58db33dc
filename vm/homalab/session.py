"""A lab that stays up: ./homalab up, status, exec, ns, down.

`up` starts a detached lab process (`vm/lab serve`), which boots the guests
as `vm/lab run` does and then holds them until `down` sends it SIGTERM; it
then tears down as a run does (rmmod, kmemleak on the debug kernel, the
kernel-log check) and its verdict is the one `down` prints and returns.

The running lab is described by one state file (JSON) in STATE_DIR:
the serving process's pid, the guests, and the environment a --host step
sees (namespace, taps, agent sockets, addresses). QEMU dies with the
serving process (PR_SET_PDEATHSIG), and a namespace whose owner died is
removed by the next lab, so a lab whose process was killed is "stale":
status says so, and up or down clean it.
"""
import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .lab import LAB_PROGRAM, Interrupted, Run
from .netns import _alive, reap_stale
from .util import LabError, progress

STATE_DIR = Path(os.environ.get("HOMALAB_STATE_DIR", "/run/homalab"))
STATE = STATE_DIR / "lab.json"
LOG = STATE_DIR / "lab.log"
VERDICT = STATE_DIR / "lab.status"


def _read_state():
    try:
        return json.loads(STATE.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise LabError(f"cannot read the lab's state {STATE}: {e}")


def _write_state(state):
    tmp = STATE.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1) + "\n")
    tmp.replace(STATE)


def _clean_stale(state):
    """The serving process of @state is gone: remove what it left."""
    progress(f"the lab of pid {state['pid']} is stale (its process died): cleaning up")
    reap_stale()
    for p in (STATE, VERDICT):
        p.unlink(missing_ok=True)


class HeldRun(Run):
    """A run whose only step is to hold the guests until SIGTERM."""

    def _steps(self, net, run_dir):
        env = self._host_env(net, run_dir)
        state = {"pid": os.getpid(), "kernel": self.args.kernel,
                 "guests": len(self.guests), "since": time.time(),
                 "run_dir": str(run_dir), "log": str(LOG),
                 "env": {k: v for k, v in env.items() if k.startswith("HOMALAB_")}}
        _write_state(state)
        progress("lab up: holding the guests until `down` (SIGTERM)")
        try:
            while True:
                for g in self.guests:
                    if not g.alive():
                        raise LabError(f"{g.tag}: QEMU ended while the lab was up "
                                       "(guest panic or reboot)")
                time.sleep(1)
        except Interrupted:
            progress("down requested: tearing down")
        # Teardown gets its own time, whatever the lab's age.
        self.deadline = time.monotonic() + 300


def cmd_serve(args):
    """The detached lab process (started by up)."""
    args.steps = []
    args.timeout = 10 ** 9
    status = 1
    try:
        status = HeldRun(args).execute()
    finally:
        STATE.unlink(missing_ok=True)
        VERDICT.write_text(f"{status}\n")
    return status


def cmd_up(args):
    if args.guests not in (1, 2):
        raise LabError("--guests must be 1 or 2")
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    state = _read_state()
    if state:
        if _alive(state["pid"]):
            raise LabError(f"a lab is already up (pid {state['pid']}, "
                           f"{state['guests']} guest(s)): `./homalab down` first")
        _clean_stale(state)
    VERDICT.unlink(missing_ok=True)
    cmd = [sys.executable, str(LAB_PROGRAM), "serve", "--kernel", args.kernel,
           "--guests", str(args.guests)]
    for f in args.file or []:
        cmd += ["--file", f]
    with open(LOG, "w") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    # Show the lab's progress until it holds the guests (or fails).
    shown = 0
    deadline = time.monotonic() + args.timeout
    while True:
        lines = LOG.read_text(errors="replace").splitlines()
        for line in lines[shown:]:
            if line.startswith("[lab"):
                print(line, file=sys.stderr, flush=True)
        shown = len(lines)
        state = _read_state()
        if state and state["pid"] == proc.pid:
            break
        if proc.poll() is not None:
            print("\n".join(lines[-30:]), file=sys.stderr)
            raise LabError(f"the lab did not come up (exit {proc.returncode}); log: {LOG}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGTERM)
            raise LabError(f"the lab was not up after {args.timeout:.0f} s; log: {LOG}")
        time.sleep(0.3)
    env = state["env"]
    print(f"lab up: {state['guests']} guest(s), {state['kernel']} kernel, Homa loaded "
          f"(pid {state['pid']}, namespace {env['HOMALAB_NETNS']})")
    for g in range(state["guests"]):
        print(f"  g{g}: {env[f'HOMALAB_G{g}_IP4']}  {env[f'HOMALAB_G{g}_IP6']}  "
              f"tap {env[f'HOMALAB_TAP{g}']}")
    print("  ./homalab exec G 'CMD'   ./homalab shell G   ./homalab status   ./homalab down")
    return 0


def cmd_status(_args):
    state = _read_state()
    if not state:
        print("no lab is up")
        return 1
    if not _alive(state["pid"]):
        print(f"stale: the lab of pid {state['pid']} died; `./homalab down` cleans it up")
        return 1
    env = state["env"]
    up = time.time() - state["since"]
    print(f"up for {up:.0f} s: {state['guests']} guest(s), {state['kernel']} kernel, "
          f"pid {state['pid']}, namespace {env['HOMALAB_NETNS']}, log {state['log']}")
    for g in range(state["guests"]):
        print(f"  g{g}: {env[f'HOMALAB_G{g}_IP4']}  {env[f'HOMALAB_G{g}_IP6']}  "
              f"tap {env[f'HOMALAB_TAP{g}']}  agent {env[f'HOMALAB_AGENT{g}']}")
    return 0


def cmd_down(args):
    state = _read_state()
    if not state:
        print("no lab is up")
        return 0
    pid = state["pid"]
    if not _alive(pid):
        _clean_stale(state)
        print("removed a stale lab")
        return 0
    shown = len(LOG.read_text(errors="replace").splitlines())
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + args.timeout
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.3)
        lines = LOG.read_text(errors="replace").splitlines()
        for line in lines[shown:]:
            if line.startswith(("[lab", "homalab")):
                print(line, flush=True)
        shown = len(lines)
    if _alive(pid):
        os.killpg(pid, signal.SIGKILL)
        _clean_stale(state)
        raise LabError(f"the lab (pid {pid}) did not end within {args.timeout:.0f} s: killed")
    for line in LOG.read_text(errors="replace").splitlines()[shown:]:
        if line.startswith(("[lab", "homalab")):
            print(line, flush=True)
    try:
        return int(VERDICT.read_text().strip() or 1)
    except (OSError, ValueError):
        return 1


def lab_env():
    """The environment of a --host step of the running lab."""
    state = _read_state()
    if not state:
        raise LabError("no lab is up: `./homalab up` first")
    if not _alive(state["pid"]):
        raise LabError(f"the lab of pid {state['pid']} is stale: `./homalab down`, then up")
    return dict(os.environ, **state["env"])


def cmd_ns(args):
    """A command in the lab's namespace, with the lab's environment."""
    env = lab_env()
    if not args.command:
        raise LabError("ns: no command given")
    return subprocess.run(["ip", "netns", "exec", env["HOMALAB_NETNS"], *args.command],
                          env=env).returncode


def _agent(env, guest):
    path = env.get(f"HOMALAB_AGENT{guest}")
    if not path:
        raise LabError(f"the lab has no guest {guest}")
    return path


def guest_run(path, command, timeout):
    """Run @command through the agent at @path: (status, output)."""
    from .guest import agent_call
    return agent_call(path, command, time.monotonic() + timeout, echo=False)


# Raw bytes per cp command: the command is one argument of sh -c in the
# guest (at most 128 KiB), and base64 makes 4 of every 3 bytes.
CP_CHUNK = 16 * 1024


def cmd_cp(args):
    """Copy a host file into a guest, through the agent, checked by size."""
    try:
        return _cp(args)
    except (OSError, TimeoutError) as e:
        raise LabError(f"cp: the guest's agent failed: {e}")


def _cp(args):
    env = lab_env()
    guest, _, dst = args.dest.partition(":")
    if not guest.isdigit():
        raise LabError(f"cp: want G or G:PATH, not '{args.dest}'")
    path = _agent(env, int(guest))
    src = Path(args.file)
    try:
        data = src.read_bytes()
        mode = src.stat().st_mode & 0o777
    except OSError as e:
        raise LabError(f"cp: cannot read {src}: {e.strerror}")
    if not dst:
        dst = f"/opt/homa/{src.name}"
    elif dst.endswith("/"):
        dst += src.name
    q = "'" + dst.replace("'", "'\\''") + "'"
    part = "'" + (dst + ".part").replace("'", "'\\''") + "'"
    status, out = guest_run(path, f"mkdir -p \"$(dirname {q})\" && : > {part}", 60)
    for off in range(0, len(data), CP_CHUNK):
        if status:
            break
        chunk = base64.b64encode(data[off:off + CP_CHUNK]).decode()
        status, out = guest_run(path, f"printf %s {chunk} | base64 -d >> {part}", 60)
    if not status:
        status, out = guest_run(path, f"chmod {mode:o} {part} && mv {part} {q} && wc -c < {q}", 60)
    if status or out.strip() != str(len(data)):
        raise LabError(f"cp: copying {src} to g{guest}:{dst} failed (status {status}): "
                       f"{out.strip()[-200:]}")
    print(f"{src} -> g{guest}:{dst} ({len(data)} bytes)")
    return 0


def cmd_shell(args):
    """A line-by-line shell in a guest: each line runs through the agent."""
    env = lab_env()
    path = _agent(env, args.guest)
    interactive = sys.stdin.isatty()
    status = 0
    while True:
        if interactive:
            sys.stdout.write(f"g{args.guest}# ")
            sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            break
        line = line.rstrip("\n")
        if line.strip() in ("exit", "logout"):
            break
        if not line.strip():
            continue
        out = ""
        try:
            status, out = guest_run(path, line, args.timeout)
        except (TimeoutError, OSError) as e:
            print(f"homalab shell: {line}: {e}", file=sys.stderr)
            status = 255
        if out:
            print(out, flush=True)
        if status:
            print(f"[exit {status}]", flush=True)
    return status

