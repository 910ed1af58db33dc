"""Small helpers shared by the lab's parts: paths, progress, commands."""
import fcntl
import hashlib
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("HOMA_LAB_CACHE", Path.home() / ".cache" / "homa-lab"))
_T0 = time.monotonic()


class LabError(Exception):
    """A failure the lab reports in one line and turns into a non-zero exit."""


def progress(msg):
    """Print one progress line with the time since the lab started."""
    print(f"[lab {time.monotonic() - _T0:6.1f}s] {msg}", file=sys.stderr, flush=True)


def run(cmd, quiet=False, **kw):
    """Run a command; raise LabError with its output if it fails."""
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, **kw)
    if res.returncode != 0:
        tail = "\n".join(res.stdout.splitlines()[-30:])
        raise LabError(f"command failed ({res.returncode}): {' '.join(map(str, cmd))}\n{tail}")
    if not quiet and res.stdout.strip():
        sys.stderr.write(res.stdout)
    return res.stdout


def digest(*parts):
    """A short stable hash of strings and file contents."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, Path):
            h.update(p.read_bytes())
        else:
            h.update(str(p).encode())
    return h.hexdigest()[:12]


@contextmanager
def file_lock(path):
    """Serialise builds of the same artefact across concurrent lab runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
