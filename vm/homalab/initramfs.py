"""A busybox initramfs per guest, written directly in cpio "newc" format.

It holds busybox-static and its applets, iproute2's tc (for netem) with its
shared libraries, the distro modules the guest needs (decompressed), homa.ko
under /lib/modules/<release>/extra with depmod's indexes (so socket() can
auto-load it through /sbin/modprobe), the guest init and agent, and any extra
files the caller asks for.
"""
import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from .util import REPO, LabError, run

BUSYBOX = Path("/bin/busybox")
GUEST_DIR = REPO / "vm" / "guest"


class Cpio:
    """Accumulates entries and writes a newc archive."""

    def __init__(self):
        self.entries = {}

    def add_dir(self, path):
        parts = Path(path).parts
        for i in range(1, len(parts) + 1):
            p = "/".join(parts[:i]).lstrip("/")
            if p and p not in self.entries:
                self.entries[p] = (stat.S_IFDIR | 0o755, b"")

    def add_file(self, path, data, mode=0o644):
        path = str(path).lstrip("/")
        self.add_dir(os.path.dirname(path))
        self.entries[path] = (stat.S_IFREG | mode, data)

    def add_symlink(self, path, target):
        path = str(path).lstrip("/")
        self.add_dir(os.path.dirname(path))
        self.entries[path] = (stat.S_IFLNK | 0o777, target.encode())

    def write(self, out):
        with open(out, "wb") as f:
            ino = 1
            for name, (mode, data) in sorted(self.entries.items()):
                self._entry(f, ino, name, mode, data)
                ino += 1
            self._entry(f, 0, "TRAILER!!!", 0, b"")

    @staticmethod
    def _entry(f, ino, name, mode, data):
        nm = name.encode() + b"\0"
        hdr = "070701" + "".join(f"{v:08x}" for v in (
            ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nm), 0))
        f.write(hdr.encode() + nm)
        f.write(b"\0" * ((4 - (110 + len(nm)) % 4) % 4))
        f.write(data)
        f.write(b"\0" * ((4 - len(data) % 4) % 4))


def _add_binary_with_libs(cpio, binary, dest):
    """Add a dynamically linked program and the libraries ldd lists."""
    cpio.add_file(dest, Path(binary).read_bytes(), 0o755)
    out = subprocess.run(["ldd", str(binary)], stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        m = re.search(r"(/\S+)\s+\(0x", line)
        if m:
            lib = Path(m.group(1))
            cpio.add_file(str(lib), lib.resolve().read_bytes(), 0o755)


def _module_tree(kernel, modules):
    """Return {relative path: bytes} of /lib/modules/<release> with depmod indexes."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "lib" / "modules" / kernel.release
        (base / "extra").mkdir(parents=True)
        for ko in modules:
            shutil.copy(ko, base / "extra" / Path(ko).name)
        for name, ko in kernel.kmods:
            shutil.copy(ko, base / "extra" / f"{name}.ko")
        for f in ("modules.builtin", "modules.builtin.modinfo", "modules.order"):
            src = Path(kernel.builtin_dir) / f
            if src.exists():
                shutil.copy(src, base / f)
        run(["depmod", "-b", tmp, kernel.release], quiet=True)
        return {str(p.relative_to(tmp)): p.read_bytes()
                for p in Path(tmp).rglob("*") if p.is_file()}


def build(out, kernel, modules, env_text, files):
    """Write the initramfs for one guest to @out.

    @files: list of (host path, guest path) to copy in.
    """
    if not BUSYBOX.exists():
        raise LabError("busybox-static is not installed: run vm/setup-host")
    c = Cpio()
    for d in ("proc", "sys", "dev", "tmp", "run", "root", "etc", "opt/homa", "mnt",
              "usr/bin", "usr/sbin", "sbin", "bin"):
        c.add_dir(d)
    c.add_file("bin/busybox", BUSYBOX.read_bytes(), 0o755)
    applets = subprocess.run([str(BUSYBOX), "--list-full"], stdout=subprocess.PIPE,
                             text=True, check=True).stdout.split()
    for a in applets:
        if a != "bin/busybox":
            c.add_symlink(a, "/bin/busybox")
    # iproute2's ip and tc: busybox's lack nodad, neigh replace and netem.
    for prog in ("ip", "tc"):
        path = shutil.which(prog) or f"/sbin/{prog}"
        if not Path(path).exists():
            raise LabError(f"iproute2's {prog} not found: run vm/setup-host")
        for a in [x for x in c.entries if Path(x).name == prog]:
            del c.entries[a]
        _add_binary_with_libs(c, path, f"sbin/{prog}")
    c.add_file("etc/passwd", b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n")
    c.add_file("etc/group", b"root:x:0:\nnogroup:x:65534:\n")
    for path, data in _module_tree(kernel, modules).items():
        c.add_file(path, data)
    c.add_file("init", (GUEST_DIR / "init").read_bytes(), 0o755)
    c.add_file("bin/homalab-agent", (GUEST_DIR / "agent").read_bytes(), 0o755)
    c.add_file("etc/homalab.env", env_text.encode())
    for src, dst in files:
        src = Path(src)
        if not src.is_file():
            raise LabError(f"--file {src}: no such file")
        mode = 0o755 if os.access(src, os.X_OK) else 0o644
        c.add_file(dst, src.read_bytes(), mode)
    c.write(out)
