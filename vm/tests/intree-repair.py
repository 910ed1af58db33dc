#!/usr/bin/env python3
"""The in-tree build leaves the cached debug tree pristine whatever happened.

vm/homalab/kernels.py applies the patch series to the debug tree, builds, and
reverses the series. A CI run once died between the two (a timeout killed it)
and the next run's repair reversed the patches oldest first; the first patch
did not reverse over the lines a later one added, and lab_intree_module_debug
failed on every run after. These cases build a small tree and source tarball
with the same shape (a later patch edits lines an earlier one added, and the
series creates new files), and check each way a run can leave the tree.
"""
import difflib
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from homalab import kernels  # noqa: E402
from homalab.util import LabError  # noqa: E402

BASE = {
    "MAINTAINERS": "ALPHA\nM:\ta\n\nOMEGA\nM:\tz\n",
    "net/Makefile": "obj-y += core/\n",
}


def git_patch(name, old, new):
    """A patch of one file from @old (None: created) to @new, as git writes it."""
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile="/dev/null" if old is None else f"a/{name}", tofile=f"b/{name}")
    return f"diff --git a/{name} b/{name}\n" + "".join(lines)


class IntreeRepair(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp())
        top = self.dir / "src" / "linux-source-6.12"
        for rel, text in BASE.items():
            (top / rel).parent.mkdir(parents=True, exist_ok=True)
            (top / rel).write_text(text)
        self.tarball = self.dir / "linux-source-6.12.tar.xz"
        subprocess.run(["tar", "-cJf", str(self.tarball), "-C", str(self.dir / "src"),
                        "linux-source-6.12"], check=True)
        self.tree = self.dir / "cache" / "linux-source-6.12"
        shutil.copytree(top, self.tree)
        kernels.SOURCE_TARBALL = self.tarball
        # 0001 adds an entry and a new file; 0002 extends that entry (so 0001
        # only reverses after 0002) and adds a line to an existing file.
        m1 = BASE["MAINTAINERS"].replace("\nOMEGA", "HOMA\nF:\thoma.h\n\nOMEGA")
        m2 = m1.replace("F:\thoma.h\n", "F:\thoma.h\nF:\tnet/homa/\n")
        patches = [
            git_patch("MAINTAINERS", BASE["MAINTAINERS"], m1) +
            git_patch("include/homa.h", None, "#define HOMA 146\n"),
            git_patch("MAINTAINERS", m1, m2) +
            git_patch("net/Makefile", BASE["net/Makefile"],
                      BASE["net/Makefile"] + "obj-m += homa/\n") +
            git_patch("net/homa/homa.c", None, "int homa;\n"),
        ]
        self.patches = []
        for i, text in enumerate(patches, 1):
            p = self.dir / f"{i:04d}.patch"
            p.write_text(text)
            self.patches.append(p)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def apply(self, patches):
        for p in patches:
            subprocess.run(["patch", "-p1", "-s", "--force", "-d", str(self.tree), "-i", str(p)],
                           check=True)

    def assert_pristine(self):
        files = sorted(str(p.relative_to(self.tree)) for p in self.tree.rglob("*")
                       if p.is_file())
        self.assertEqual(files, sorted(BASE))
        for rel, text in BASE.items():
            self.assertEqual((self.tree / rel).read_text(), text, rel)

    def test_reverse_newest_first(self):
        self.apply(self.patches)
        kernels._unpatch(self.tree, self.patches)
        self.assert_pristine()

    def test_oldest_first_does_not_reverse(self):
        # The premise of the first case: the order matters for this series.
        self.apply(self.patches)
        with self.assertRaises(LabError):
            kernels.run(["patch", "-p1", "-s", "-R", "--force", "-d", str(self.tree),
                         "-i", str(self.patches[0])])

    def test_repair_after_death_mid_reverse(self):
        # Died after reversing 0002 only, then a failed attempt left a .rej.
        self.apply(self.patches)
        kernels.run(["patch", "-p1", "-s", "-R", "-E", "--force", "-d", str(self.tree),
                     "-i", str(self.patches[1])])
        (self.tree / "MAINTAINERS.rej").write_text("leftover\n")
        kernels._restore_base(self.tree, self.patches)
        self.assert_pristine()

    def test_repair_after_death_mid_apply(self):
        self.apply(self.patches[:1])
        kernels._restore_base(self.tree, self.patches)
        self.assert_pristine()

    def test_unpatch_falls_back_when_a_patch_does_not_reverse(self):
        # The tree was edited behind the build's back: reversing fails, and
        # the touched files come back from the tarball all the same.
        self.apply(self.patches)
        (self.tree / "net" / "Makefile").write_text("something else\n")
        kernels._unpatch(self.tree, self.patches)
        self.assert_pristine()


if __name__ == "__main__":
    unittest.main(verbosity=2)
