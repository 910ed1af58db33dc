"""One QEMU guest: its process, its console, and its agent channel."""
import base64
import ctypes
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from .util import LabError, progress

PR_SET_PDEATHSIG = 1
EXIT_MARK = b"\x01HOMALAB-EXIT "


def _die_with_parent():
    """Runs in the child before exec: QEMU dies if the lab process dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.setpgid(0, 0)


def guest_mac(index):
    return f"52:54:00:48:00:{index:02x}"


class Guest:
    """A guest booted from @kernel and @initrd on tap @tap of @net."""

    def __init__(self, index, kernel, initrd, net, run_dir, pcap=None, smp=2, offload=False,
                 tcg_thread="multi"):
        self.index = index
        self.kernel = kernel
        self.initrd = initrd
        self.net = net
        self.run_dir = Path(run_dir)
        self.pcap = pcap
        self.smp = smp
        self.offload = offload
        self.tcg_thread = tcg_thread
        self.agent_path = self.run_dir / f"agent{index}.sock"
        self.log_path = self.run_dir / f"g{index}.console.log"
        self.lines = []
        self.ready = threading.Event()
        self.boot_seconds = None
        self.proc = None
        self._reader = None
        self._log = None
        self._lock = threading.Lock()

    @property
    def tag(self):
        return f"g{self.index}"

    def start(self):
        k = self.kernel
        append = ("console=ttyS0 panic=-1 oops=panic panic_on_warn=1 quiet loglevel=5 "
                  "net.ifnames=0 " + k.extra_cmdline).strip()
        cmd = self.net.exec_prefix() + [
            "qemu-system-x86_64", "-accel", f"tcg,thread={self.tcg_thread}",
            "-cpu", "max,la57=off",
            "-smp", str(self.smp), "-m", str(k.memory_mb), "-nodefaults", "-no-reboot",
            "-display", "none", "-kernel", str(k.vmlinuz), "-initrd", str(self.initrd),
            "-append", append,
            "-chardev", "stdio,id=con,signal=off", "-serial", "chardev:con",
            "-chardev", f"socket,id=agent,path={self.agent_path},server=on,wait=off",
            "-serial", "chardev:agent",
            "-netdev", f"tap,id=n0,ifname={self.net.taps[self.index]},script=no,"
                       f"downscript=no,vnet_hdr={'on' if self.offload else 'off'}",
            "-device", f"virtio-net-pci,netdev=n0,mac={guest_mac(self.index)},romfile=",
        ]
        if self.pcap:
            cmd += ["-object", f"filter-dump,id=f0,netdev=n0,file={self.pcap}"]
        progress(f"{self.tag}: booting the {k.name} kernel {k.release} "
                 f"({self.smp} vCPU, {k.memory_mb} MiB, TCG)")
        self._log = open(self.log_path, "w")
        self._t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        self._reader = threading.Thread(target=self._read_console, daemon=True)
        self._reader.start()

    def _read_console(self):
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").rstrip("\r\n")
            with self._lock:
                self.lines.append(line)
            self._log.write(line + "\n")
            self._log.flush()
            print(f"[{self.tag}] {line}", flush=True)
            if line.startswith("HOMALAB-READY"):
                self.boot_seconds = time.monotonic() - self._t0
                self.ready.set()

    def console_text(self):
        with self._lock:
            return "\n".join(self.lines)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def save_log(self, suffix):
        """Keep a failed boot's console log beside the run's logs."""
        if self.log_path.exists():
            self.log_path.rename(self.log_path.with_suffix(f".{suffix}.log"))

    def reached_init(self):
        """True once our init ran: any crash after that may be ours."""
        with self._lock:
            return any(line.startswith("HOMALAB-INIT") for line in self.lines)

    def wait_ready(self, deadline):
        while not self.ready.is_set():
            if not self.alive():
                if not self.reached_init():
                    raise EarlyBootCrash(f"{self.tag}: the kernel died before init ran "
                                         f"(status {self.proc.returncode})")
                raise LabError(f"{self.tag}: QEMU exited before the guest was ready "
                               f"(status {self.proc.returncode})")
            if time.monotonic() > deadline:
                raise LabError(f"{self.tag}: guest not ready before the timeout")
            self.ready.wait(0.2)
        progress(f"{self.tag}: ready after {self.boot_seconds:.1f} s")

    def execute(self, command, deadline, echo=True):
        """Run @command in the guest via the agent; return (status, output)."""
        try:
            return agent_call(self.agent_path, command, deadline, self, echo)
        except (socket.timeout, TimeoutError):
            raise LabError(f"{self.tag}: command did not finish before the timeout: {command}")
        except OSError as e:
            raise LabError(f"{self.tag}: agent channel failed ({e}) running: {command}")

    def stop(self, grace=5.0):
        """End QEMU: it normally exits on its own after reboot -f."""
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            progress(f"{self.tag}: killing QEMU")
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        if self._reader:
            self._reader.join(timeout=5)
        if self._log:
            self._log.close()


class EarlyBootCrash(LabError):
    """The guest kernel died before our init ran, so nothing of ours was loaded."""


def agent_call(path, command, deadline, guest=None, echo=True):
    """Run @command (sh -c) in a guest through its agent's socket @path, by
    @deadline (time.monotonic()): (status, output). The one round trip
    with an agent (vm/guest/agent): one line "HOMALAB-CMD <base64>" out,
    the output and an exit mark back. @guest, when known, is watched."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        sock.connect(str(path))
        sock.sendall(b"HOMALAB-CMD " + base64.b64encode(command.encode()) + b"\n")
        return read_reply(sock, deadline, guest, echo)
    finally:
        sock.close()


def read_reply(sock, deadline, guest=None, echo=True):
    """Read an agent reply up to its exit mark; stream lines as they come."""
    buf = b""
    out = []
    tag = guest.tag if guest else "guest"
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if line.startswith(EXIT_MARK):
                return int(line[len(EXIT_MARK):].strip() or b"255"), "\n".join(out)
            text = line.decode(errors="replace").rstrip("\r")
            out.append(text)
            if echo:
                print(f"[{tag}] {text}", flush=True)
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError()
        if guest is not None and not guest.alive():
            raise LabError(f"{tag}: QEMU exited while a command ran")
        sock.settimeout(min(left, 1.0))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        if not chunk:
            if guest is not None:
                try:
                    guest.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
                if not guest.alive():
                    raise LabError(f"{tag}: the guest ended while a command ran "
                                   "(kernel panic or reboot; see the console log)")
            raise LabError(f"{tag}: agent closed the channel")
        buf += chunk
