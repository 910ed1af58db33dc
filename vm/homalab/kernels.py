"""Where guest kernels come from, and building the Homa module for them.

distro: Debian's 6.12 image, unpacked by vm/setup-host into the cache, with the
        installed linux-headers of the same ABI as its build tree.
debug:  built here from Debian's linux-source-6.12 with KASAN, lockdep,
        kmemleak, UBSAN and DEBUG_ATOMIC_SLEEP, cached by source version and
        config hash. (Building Homa in-tree from the patch series is a separate,
        incremental step on top of this tree.)
"""
import lzma
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .util import CACHE, REPO, LabError, digest, file_lock, progress, run

SOURCE_TARBALL = Path("/usr/src/linux-source-6.12.tar.xz")
DEBUG_FRAGMENT = REPO / "vm" / "debug.config"
# Distro modules a guest needs, in load order (decompressed into the initramfs):
# the NIC, netem, and xfrm_user so that `ip xfrm` can set IPsec policies.
DISTRO_KMODS = ["failover", "net_failover", "virtio_net", "sch_netem", "xfrm_algo", "xfrm_user"]


@dataclass
class Kernel:
    """A bootable guest kernel and the tree modules are built against."""
    name: str
    vmlinuz: Path
    release: str
    build_tree: Path
    kmods: list = field(default_factory=list)   # (name, path of .ko) to insmod at boot
    builtin_dir: Path = None                      # where modules.builtin* live
    memory_mb: int = 768
    extra_cmdline: str = ""
    debug: bool = False


def distro_kernel():
    """The Debian 6.12 kernel unpacked by vm/setup-host."""
    abi_file = CACHE / "distro" / "ABI"
    if not abi_file.exists():
        raise LabError("no distro kernel in the cache: run vm/setup-host first")
    abi = abi_file.read_text().strip()
    kdir = CACHE / "distro" / abi
    tree = Path(f"/usr/src/linux-headers-{abi}")
    if not (kdir / "vmlinuz").exists() or not tree.exists():
        raise LabError(f"kernel {abi} incomplete (image or headers missing): run vm/setup-host")
    moddir = kdir / "lib" / "modules" / abi
    kmods = []
    out = CACHE / "distro" / f"{abi}-kmods"
    out.mkdir(parents=True, exist_ok=True)
    for name in DISTRO_KMODS:
        found = list(moddir.rglob(f"{name}.ko*"))
        if not found:
            raise LabError(f"distro module {name} not found under {moddir}")
        dst = out / f"{name}.ko"
        if not dst.exists():
            src = found[0]
            data = lzma.decompress(src.read_bytes()) if src.suffix == ".xz" else src.read_bytes()
            tmp = dst.with_suffix(".tmp")
            tmp.write_bytes(data)
            tmp.rename(dst)
        kmods.append((name, dst))
    return Kernel("distro", kdir / "vmlinuz", abi, tree, kmods, builtin_dir=moddir)


def _source_version():
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "linux-source-6.12"],
                         stdout=subprocess.PIPE, text=True)
    if out.returncode != 0 or not out.stdout:
        raise LabError("linux-source-6.12 is not installed: run vm/setup-host")
    return out.stdout.strip()


def debug_key():
    """Cache key of the debug kernel: source version and config fragment."""
    return digest(_source_version(), DEBUG_FRAGMENT)


def debug_kernel(build=True):
    """The debug kernel, built from the distro source if not cached."""
    key = debug_key()
    base = CACHE / "debug" / key
    tree = base / "linux-source-6.12"
    done = base / "done"
    with file_lock(CACHE / "debug" / f"{key}.lock"):
        if not done.exists():
            if not build:
                raise LabError("debug kernel not built: run vm/lab build-debug-kernel")
            _build_debug(base, tree)
            done.write_text("ok\n")
    release = (tree / "include" / "config" / "kernel.release").read_text().strip()
    return Kernel("debug", tree / "arch" / "x86" / "boot" / "bzImage", release, tree,
                  [], builtin_dir=tree, memory_mb=512, debug=True)


def _build_debug(base, tree):
    if base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True)
    progress(f"debug kernel: extracting {SOURCE_TARBALL} (about 20 s)")
    run(["tar", "-xJf", str(SOURCE_TARBALL), "-C", str(base)])
    progress("debug kernel: configuring (tinyconfig + kvm_guest + vm/debug.config)")
    env = dict(os.environ, KCONFIG_CONFIG=".config")
    run(["make", "-C", str(tree), "-s", "tinyconfig"], quiet=True, env=env)
    run([str(tree / "scripts/kconfig/merge_config.sh"), "-m", "-O", str(tree),
         str(tree / ".config"), str(tree / "kernel/configs/kvm_guest.config"),
         str(DEBUG_FRAGMENT)], quiet=True, cwd=str(tree))
    run(["make", "-C", str(tree), "-s", "olddefconfig", "LOCALVERSION=-homadebug"], quiet=True)
    config = (tree / ".config").read_text()
    need = ["CONFIG_KASAN=y", "CONFIG_PROVE_LOCKING=y", "CONFIG_DEBUG_KMEMLEAK=y",
            "CONFIG_DEBUG_ATOMIC_SLEEP=y", "CONFIG_VIRTIO_NET=y", "CONFIG_IPV6=y",
            "CONFIG_MODULE_UNLOAD=y", "CONFIG_NET_SCH_NETEM=y", "CONFIG_UBSAN=y",
            "CONFIG_NET_NS=y", "CONFIG_KUNIT=y"]
    missing = [n for n in need if n not in config.splitlines()]
    if missing:
        raise LabError(f"debug kernel config lost {missing}: fix vm/debug.config")
    jobs = str(os.cpu_count() or 2)
    progress(f"debug kernel: make -j{jobs} bzImage modules (about 7 min on 2 cores; cached afterwards)")
    run(["make", "-C", str(tree), f"-j{jobs}", "-s", "bzImage", "modules",
         "LOCALVERSION=-homadebug"], quiet=True)
    progress("debug kernel: built")


def module_build_dir(kernel, src):
    """Per-source, per-kernel copy of a module tree where Kbuild writes objects."""
    return CACHE / "modbuild" / digest(str(Path(src).resolve())) / kernel.name


def build_modules(kernel, src):
    """Build the out-of-tree module(s) in @src for @kernel; return the .ko paths."""
    src = Path(src).resolve()
    if not (src / "Kbuild").exists() and not (src / "Makefile").exists():
        raise LabError(f"{src}: not a module source folder (no Kbuild or Makefile)")
    out = module_build_dir(kernel, src)
    with file_lock(out.parent / f"{kernel.name}.lock"):
        _sync_tree(src, out)
        progress(f"building {src.name}/ modules for the {kernel.name} kernel ({kernel.release})")
        run(["make", "-C", str(kernel.build_tree), f"M={out}", "-j2", "modules"],
            quiet=True)
    kos = sorted(out.glob("*.ko"))
    if not kos:
        raise LabError(f"module build of {src} produced no .ko")
    return kos


def build_module(kernel, src=REPO / "kernel"):
    """Build homa.ko for @kernel out of tree; return its path."""
    for ko in build_modules(kernel, src):
        if ko.name == "homa.ko":
            return ko
    raise LabError("the kernel/ build produced no homa.ko")


def _sync_tree(src, dst):
    """Copy the module sources, touching only files whose content changed."""
    wanted = set()
    for p in src.rglob("*"):
        rel = p.relative_to(src)
        if rel.parts[0] in ("selftests", "series", "tests") or not p.is_file():
            continue
        if p.suffix not in (".c", ".h") and p.name not in ("Kbuild", "Makefile", "Kconfig"):
            continue
        wanted.add(rel)
        d = dst / rel
        if not d.exists() or d.read_bytes() != p.read_bytes():
            d.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, d)
    for p in list(dst.rglob("*.c")) + list(dst.rglob("*.h")):
        if p.relative_to(dst) not in wanted:
            p.unlink()


def build_in_tree(src=REPO / "kernel"):
    """Build homa.ko in-tree (CONFIG_HOMA=m) in the debug tree from the series.

    kernel/make-series turns @src into patches; they are applied to the cached
    debug tree, net/homa/homa.ko is built by Kbuild like any in-tree module,
    copied out, and the patches are reversed again so that the tree stays the
    pristine base for out-of-tree builds. Cached by the series' content.
    """
    kernel = debug_kernel()
    tree = kernel.build_tree
    out = tree.parent / "intree"
    series = out / "series"
    with file_lock(CACHE / "debug" / f"{debug_key()}.intree.lock"):
        if series.exists():
            shutil.rmtree(series)
        series.mkdir(parents=True)
        run([str(Path(src).resolve() / "make-series"), str(series)], quiet=True)
        patches = sorted(series.glob("*.patch"))
        dirty = out / "applied"
        if dirty.exists():
            # A run died between applying and reversing the series (killed
            # by a timeout, say); at any point: mid-patch, mid-reverse.
            progress("in-tree build: an earlier run died with the debug tree patched")
            _restore_base(tree, sorted(dirty.glob("*.patch")))
            shutil.rmtree(dirty)
        key = digest(*patches)
        ko = out / key / "homa.ko"
        if ko.exists():
            progress(f"in-tree homa.ko of this series is cached ({ko})")
            return ko
        progress(f"in-tree build: applying {len(patches)} patches to the debug tree")
        # Record the whole series before touching the tree, so that a run
        # that dies from here on is repaired by the next one.
        dirty.mkdir()
        for patch in patches:
            shutil.copy(patch, dirty / patch.name)
        done = []
        try:
            for patch in patches:
                done.append(patch)
                run(["patch", "-p1", "-s", "--forward", "--force", "-d", str(tree),
                     "-i", str(patch)])
            run([str(tree / "scripts" / "config"), "--file", str(tree / ".config"),
                 "-m", "HOMA"])
            run(["make", "-C", str(tree), "-s", "olddefconfig",
                 "LOCALVERSION=-homadebug"], quiet=True)
            if "CONFIG_HOMA=m" not in (tree / ".config").read_text().splitlines():
                raise LabError("in-tree build: CONFIG_HOMA=m did not survive olddefconfig "
                               "(net/homa/Kconfig not sourced?)")
            progress("in-tree build: make W=1 net/homa/homa.ko (CONFIG_HOMA=m)")
            log = run(["make", "-C", str(tree), "-j2", "W=1", "LOCALVERSION=-homadebug",
                       "net/homa/homa.ko"], quiet=True)
            warnings = [l for l in log.splitlines() if "warning:" in l]
            if warnings:
                raise LabError("in-tree build has warnings:\n" + "\n".join(warnings[:20]))
            for old in out.glob("*/homa.ko"):
                shutil.rmtree(old.parent)
            ko.parent.mkdir()
            shutil.copy(tree / "net" / "homa" / "homa.ko", ko)
        finally:
            _unpatch(tree, done)
            shutil.rmtree(dirty, ignore_errors=True)
        progress(f"in-tree build: {ko}")
        return ko


def _patched_files(patches, base_only=False):
    """The tree-relative paths that @patches touch (with @base_only: modify)."""
    files = set()
    marker = "--- a/" if base_only else "+++ b/"
    for patch in patches:
        for line in patch.read_text(errors="replace").splitlines():
            if line.startswith(marker):
                files.add(line[len(marker):].split("\t")[0].strip())
    return sorted(files)


def _unpatch(tree, patches):
    """Reverse @patches, newest first, and fall back to the tarball on trouble.

    A later patch may change lines that an earlier one added (MAINTAINERS),
    so the order matters.  If a patch does not reverse cleanly the tree is
    in a state we did not make, and _restore_base() puts the touched files
    back as the tarball has them.
    """
    try:
        for patch in reversed(patches):
            run(["patch", "-p1", "-s", "-R", "-E", "--force", "-d", str(tree),
                 "-i", str(patch)])
    except LabError as err:
        progress(f"in-tree build: reversing the series failed ({str(err).splitlines()[0]}); "
                 "restoring the touched files from the source tarball")
        _restore_base(tree, patches)
    _remove_leftovers(tree, patches)


def _restore_base(tree, patches):
    """Put every file @patches touch back as the source tarball has it.

    Works whatever state a dead run left: files the series adds are
    removed, files it modifies are extracted again from SOURCE_TARBALL.
    """
    files = _patched_files(patches)
    base = _patched_files(patches, base_only=True)
    progress(f"in-tree build: restoring the {len(files)} files the series touches "
             f"as {SOURCE_TARBALL.name} has them")
    for rel in files:
        (tree / rel).unlink(missing_ok=True)
    if base:
        run(["tar", "-xJf", str(SOURCE_TARBALL), "-C", str(tree.parent)] +
            [f"{tree.name}/{f}" for f in base])
    _remove_leftovers(tree, patches)


def _remove_leftovers(tree, patches):
    """Drop the .rej and .orig files a failed patch run leaves next to its targets."""
    for rel in _patched_files(patches):
        for suffix in (".rej", ".orig"):
            (tree / (rel + suffix)).unlink(missing_ok=True)


def get_kernel(name, build=True):
    """Resolve a kernel by name: 'distro' or 'debug'."""
    if name == "distro":
        return distro_kernel()
    if name == "debug":
        return debug_kernel(build=build)
    raise LabError(f"unknown kernel '{name}' (use distro or debug)")


__all__ = ["Kernel", "get_kernel", "build_module", "build_in_tree", "debug_kernel", "distro_kernel"]
