"""A lab run: boot guests in a private network, run steps, judge the result."""
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from . import initramfs
from .guest import EarlyBootCrash, Guest, guest_mac
from .kernels import build_in_tree, build_module, build_modules, get_kernel
from .netns import LabNet
from .report import Cases, find_splats
from .util import REPO, LabError, progress

PEER = {"ip4": "198.18.0.100", "ip6": "2001:db8::100", "mac": "02:48:4f:4d:41:64"}
LAB_PROGRAM = REPO / "vm" / "lab"


# An address on the guests' subnet that no host of the lab has, and the
# subnet's IPv4 broadcast address.
UNUSED = {"ip4": "198.18.0.99", "ip6": "2001:db8::99"}
BCAST4 = "198.18.0.255"
# Blocks of addresses, named by their base (k-th address: base + k, k in
# 1..254): sources the crafter spoofs (a guest routes the block to it),
# and addresses a test puts on a guest's lo.
SPOOF = {"ip4": "198.18.1.0", "ip6": "2001:db8:1::"}
LOCAL = {"ip4": "198.18.2.0", "ip6": "2001:db8:2::"}


def guest_addr(index):
    return {"ip4": f"198.18.0.{11 + index}", "ip6": f"2001:db8::{11 + index}",
            "mac": guest_mac(index)}


def identity(guests):
    """The lab's addresses, named as every step sees them: --host steps in
    their environment, guest commands in theirs (exported by the guest's
    init from /etc/homalab.env). Tests name hosts by these, never by value.
    """
    env = {"HOMALAB_PEER_IP4": PEER["ip4"], "HOMALAB_PEER_IP6": PEER["ip6"],
           "HOMALAB_PEER_MAC": PEER["mac"], "HOMALAB_UNUSED_IP4": UNUSED["ip4"],
           "HOMALAB_UNUSED_IP6": UNUSED["ip6"], "HOMALAB_BCAST_IP4": BCAST4,
           "HOMALAB_SPOOF_IP4": SPOOF["ip4"], "HOMALAB_SPOOF_IP6": SPOOF["ip6"],
           "HOMALAB_LOCAL_IP4": LOCAL["ip4"], "HOMALAB_LOCAL_IP6": LOCAL["ip6"]}
    for index in range(guests):
        a = guest_addr(index)
        env[f"HOMALAB_G{index}_IP4"] = a["ip4"]
        env[f"HOMALAB_G{index}_IP6"] = a["ip6"]
        env[f"HOMALAB_G{index}_MAC"] = a["mac"]
    return env


class Interrupted(Exception):
    pass


def _on_signal(signum, _frame):
    raise Interrupted(f"signal {signum}")


def _guest_command(cmd):
    """Backgrounded commands write to the console and are killed at the end."""
    stripped = cmd.rstrip()
    if stripped.endswith("&") and not stripped.endswith("&&"):
        inner = stripped[:-1].rstrip().replace("'", "'\\''")
        return f"setsid sh -c '{inner}' </dev/null >/dev/console 2>&1 &"
    return cmd


# Ends every user process but init (the agent), then unloads Homa.
_TEARDOWN = r"""
for p in /proc/[0-9]*; do
	pid=${p#/proc/}
	[ "$pid" = 1 ] || [ "$pid" = $$ ] && continue
	# procfs files report size 0, so read cmdline: kernel threads have none.
	[ -n "$(tr -d '\0' < "$p/cmdline" 2>/dev/null)" ] || continue
	kill -9 "$pid" 2>/dev/null
done
sleep 0.3
"""
_UNLOAD = r"""
if [ -d /sys/module/homa ]; then
	i=0
	until rmmod homa; do
		i=$((i + 1))
		[ $i -ge 20 ] && { echo "rmmod homa failed; refcnt $(cat /sys/module/homa/refcnt)"; exit 1; }
		sleep 0.25
	done
	echo "homa unloaded"
fi
"""
# kmemleak reports an object only when it is unreferenced in a scan AND its
# contents did not change since the previous scan, so one scan after a quiet
# period is blind to almost every leak: scan twice (as netdev's CI does). The
# script fails (exit 3) when kmemleak is missing or a scan fails, and prints
# the number of reports on a line of its own.
_KMEMLEAK = r"""
k=/sys/kernel/debug/kmemleak
[ -e $k ] || { echo "HOMALAB-KMEMLEAK missing: $k does not exist (debugfs not mounted?)"; exit 3; }
for pass in 1 2; do
	echo scan > $k || { echo "HOMALAB-KMEMLEAK scan $pass failed"; exit 3; }
	[ $pass = 1 ] && sleep 6
done
cat $k || { echo "HOMALAB-KMEMLEAK cannot read $k"; exit 3; }
echo "HOMALAB-KMEMLEAK scans done"
"""


class Run:
    """One lab run with its options; call execute() once."""

    def __init__(self, args):
        self.args = args
        self.guests = []
        self.cases = Cases()
        self.failures = []
        self.extra_text = []
        self.early_boot_retries = 0

    def _files(self):
        files = []
        for spec in self.args.file or []:
            src, _, dst = spec.partition(":")
            files.append((src, dst or f"/opt/homa/{Path(src).name}"))
        return files

    def _env_text(self, index, kernel):
        a = guest_addr(index)
        neigh = " ".join(f"{guest_addr(j)['ip4']},{guest_addr(j)['ip6']},{guest_addr(j)['mac']}"
                         for j in range(self.args.guests) if j != index)
        return "\n".join([
            f"GUEST_INDEX={index}", f"IP4={a['ip4']}", f"IP6={a['ip6']}",
            f"PEER_IP4={PEER['ip4']}", f"PEER_IP6={PEER['ip6']}", f"PEER_MAC={PEER['mac']}",
            f"NEIGHBOURS='{neigh}'",
            f"KMODS='{' '.join(n for n, _ in kernel.kmods)}'",
            f"LOAD_MODULE={0 if self.args.no_load or self.args.no_homa else 1}",
            *(f"export {k}={v}" for k, v in identity(self.args.guests).items()), ""])

    def _host_env(self, net, run_dir):
        env = dict(os.environ, HOMALAB_RUN_DIR=str(run_dir), HOMALAB_NETNS=net.name,
                   HOMALAB_BRIDGE=net.bridge, HOMALAB_LAB=str(LAB_PROGRAM),
                   **identity(self.args.guests))
        for g in self.guests:
            env[f"HOMALAB_TAP{g.index}"] = net.taps[g.index]
            env[f"HOMALAB_AGENT{g.index}"] = str(g.agent_path)
        return env

    def execute(self):
        a = self.args
        old = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        self.deadline = time.monotonic() + a.timeout
        run_dir = Path(tempfile.mkdtemp(prefix="homalab-run-"))
        os.chmod(run_dir, 0o755)
        try:
            kernel = get_kernel(a.kernel)
            if self.args.no_homa:
                kos = []
            elif self.args.in_tree:
                if kernel.name != "debug":
                    raise LabError("--in-tree needs --kernel debug (the series is built "
                                   "in the debug kernel's tree)")
                kos = [build_in_tree(self.args.homa_src)]
            else:
                kos = [build_module(kernel, self.args.homa_src)]
            for src in self.args.module_src or []:
                kos += build_modules(kernel, src)
            with LabNet(a.guests) as net:
                try:
                    self._boot(kernel, kos, net, run_dir)
                    self._steps(net, run_dir)
                    self._finish()
                except Interrupted as e:
                    self.failures.append(f"interrupted ({e})")
                except LabError as e:
                    self.failures.append(str(e))
                finally:
                    for g in self.guests:
                        g.stop(grace=5 if not self.failures else 0.5)
        except Interrupted as e:
            self.failures.append(f"interrupted ({e})")
        except LabError as e:
            self.failures.append(str(e))
        finally:
            for s, h in old.items():
                signal.signal(s, h)
        return self._judge(run_dir)

    def _boot(self, kernel, kos, net, run_dir):
        pcap_dir = Path(self.args.pcap_dir).resolve() if self.args.pcap_dir else None
        if pcap_dir:
            pcap_dir.mkdir(parents=True, exist_ok=True)
        files = self._files()
        for i in range(self.args.guests):
            initrd = run_dir / f"g{i}.initramfs.cpio"
            initramfs.build(initrd, kernel, kos, self._env_text(i, kernel), files)
            pcap = pcap_dir / f"g{i}.pcap" if pcap_dir else None
            g = Guest(i, kernel, initrd, net, run_dir, pcap=pcap, offload=self.args.offload,
                      tcg_thread=self.args.tcg_thread)
            self.guests.append(g)
            g.start()
        for n, g in enumerate(self.guests):
            for attempt in range(1, 4):
                try:
                    g.wait_ready(self.deadline)
                    break
                except EarlyBootCrash as e:
                    if attempt == 3:
                        raise
                    # TCG occasionally crashes an early boot (before init, so before
                    # our module or programs ran); say so and boot that guest again.
                    progress(f"{e}; booting {g.tag} again (attempt {attempt + 1} of 3)")
                    self.early_boot_retries += 1
                    g.stop()
                    g.save_log(f"attempt{attempt}")
                    g = Guest(g.index, kernel, g.initrd, net, run_dir, pcap=g.pcap,
                              offload=g.offload, tcg_thread=g.tcg_thread)
                    self.guests[n] = g
                    g.start()
            if self.args.max_boot and g.boot_seconds > self.args.max_boot:
                self.failures.append(f"{g.tag}: boot took {g.boot_seconds:.1f} s, "
                                     f"more than --max-boot {self.args.max_boot} s")

    def _steps(self, net, run_dir):
        for n, step in enumerate(self.args.steps or [], 1):
            if step[0] == "on":
                index, cmd = int(step[1]), step[2]
                if not 0 <= index < len(self.guests):
                    raise LabError(f"--on {index}: there are only {len(self.guests)} guest(s)")
                g = self.guests[index]
                progress(f"step {n}: {g.tag}: {cmd}")
                status, out = g.execute(_guest_command(cmd), self.deadline)
                self.cases.add_output(f"step {n} ({g.tag}: {cmd})", out)
            else:
                cmd = step[1]
                progress(f"step {n}: host: {cmd}")
                status, out = self._host_step(cmd, net, run_dir)
                self.cases.add_output(f"step {n} (host: {cmd})", out)
            if status != 0:
                self.failures.append(f"step {n} exited with status {status}: {cmd}")
                if not self.args.keep_going:
                    break

    def _host_step(self, cmd, net, run_dir):
        left = self.deadline - time.monotonic()
        proc = subprocess.Popen(net.exec_prefix() + ["sh", "-c", cmd],
                                env=self._host_env(net, run_dir), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        out = []
        try:
            def pump():
                for raw in proc.stdout:
                    line = raw.decode(errors="replace").rstrip("\n")
                    out.append(line)
                    print(f"[host] {line}", flush=True)
            t = threading.Thread(target=pump, daemon=True)
            t.start()
            status = proc.wait(timeout=max(1, left))
            t.join(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise LabError(f"host step did not finish before the timeout: {cmd}")
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        return status, "\n".join(out)

    def _finish(self):
        # Each guest's teardown (and on the debug kernel its two kmemleak
        # scans, 6 s apart) is its own: the guests do it at the same time.
        errors = []

        def finish(g):
            try:
                self._finish_guest(g)
            except BaseException as e:  # re-raised below, in this thread
                errors.append(e)

        threads = [threading.Thread(target=finish, args=(g,)) for g in self.guests]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        for g in self.guests:
            try:
                g.execute("sync; reboot -f", min(self.deadline, time.monotonic() + 2), echo=False)
            except LabError:
                pass    # the guest goes away mid-command: that is the point

    def _finish_guest(self, g):
        """Tear guest @g down: end its processes, unload Homa, scan for
        leaks (debug kernel), keep its kernel log; what fails is noted in
        self.failures."""
        if not g.alive():
            raise LabError(f"{g.tag}: QEMU ended during the run (guest panic or reboot)")
        g.execute(_TEARDOWN, self.deadline, echo=False)
        if self.failures or self.cases.failed:
            self._save_metrics(g)
        if not self.args.keep_module:
            progress(f"{g.tag}: unloading homa")
            status, out = g.execute(_UNLOAD, self.deadline)
            if status != 0:
                self.failures.append(f"{g.tag}: the module did not unload: {out.strip()}")
        if g.kernel.debug:
            progress(f"{g.tag}: kmemleak: two scans, 6 s apart")
            status, out = g.execute(_KMEMLEAK, self.deadline, echo=False)
            self.extra_text.append(out)
            if status != 0 or "HOMALAB-KMEMLEAK scans done" not in out:
                self.failures.append(f"{g.tag}: kmemleak did not scan (status {status}): "
                                     + " ".join(l for l in out.splitlines()
                                                if "HOMALAB-KMEMLEAK" in l))
            leaks = out.count("unreferenced object")
            progress(f"{g.tag}: kmemleak reports {leaks} unreferenced object(s)")
        _, dmesg = g.execute("dmesg", self.deadline, echo=False)
        (g.run_dir / f"{g.tag}.dmesg").write_text(dmesg)
        self.extra_text.append(dmesg)

    def _save_metrics(self, g):
        """After a failure: what Homa counted in @g, kept in its run folder
        and, the non-zero counters, printed (a failed step often says only
        what went wrong on its own side)."""
        status, out = g.execute("cat /proc/net/homa_metrics", self.deadline, echo=False)
        if status != 0:
            return
        (g.run_dir / f"{g.tag}.homa_metrics").write_text(out)
        nonzero = [" ".join(f) for f in (l.split() for l in out.splitlines())
                   if len(f) == 2 and f[1] != "0"]
        progress(f"{g.tag}: homa metrics after the failure: " + ", ".join(nonzero))

    def _judge(self, run_dir):
        text = "\n".join([g.console_text() for g in self.guests] + self.extra_text)
        splats = find_splats(text)
        for g in self.guests:
            self.cases.add_output(f"{g.tag} console", "\n".join(
                l for l in g.lines if not l.lstrip().startswith("1..")))
        problems = (self.failures + self.cases.failed + self.cases.problems +
                    [f"kernel report ({k}): {line}" for k, line in splats])
        if self.cases.skipped and not self.args.allow_skip:
            problems += [f"skipped (a skip fails the run without --allow-skip REASON): {s}"
                         for s in self.cases.skipped]
        summary = (f"{self.cases.ok} case(s) ok, {len(self.cases.failed)} failed, "
                   f"{len(self.cases.skipped)} skipped")
        if self.cases.skipped and self.args.allow_skip:
            summary += f" (skips allowed: {self.args.allow_skip})"
        boots = ", ".join(f"{g.tag} ready in {g.boot_seconds:.1f} s"
                          for g in self.guests if g.boot_seconds is not None)
        if self.early_boot_retries:
            boots += f"; {self.early_boot_retries} early-boot crash(es) retried"
        if problems:
            print("homalab: FAIL: " + summary + (f" ({boots})" if boots else ""), flush=True)
            for p in problems:
                print(f"homalab:   {p}", flush=True)
            print(f"homalab: logs kept in {run_dir}", flush=True)
            return 1
        print(f"homalab: PASS: {summary} ({boots})", flush=True)
        if not self.args.keep_logs:
            shutil.rmtree(run_dir, ignore_errors=True)
        else:
            print(f"homalab: logs kept in {run_dir}", flush=True)
        return 0
