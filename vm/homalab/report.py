"""Reading results: KTAP/TAP cases and kernel splats in guest logs."""
import re

# A kernel report of any of these kinds fails a run, whatever the tests said.
SPLATS = [
    (re.compile(r"\bOops\b|general protection fault|kernel BUG at|BUG: unable to handle"), "oops/BUG"),
    (re.compile(r"\bBUG: KASAN\b|KASAN: "), "KASAN"),
    (re.compile(r"\bUBSAN: "), "UBSAN"),
    (re.compile(r"\bBUG: "), "BUG"),
    # lockdep before WARN: its reports start with "WARNING: " too.
    (re.compile(r"DEBUG_LOCKS_WARN_ON|possible circular locking|inconsistent lock state|"
                r"possible recursive locking|suspicious RCU usage"), "lockdep"),
    (re.compile(r"WARNING: |------------\[ cut here \]------------"), "WARN"),
    (re.compile(r"unreferenced object 0x|suspected memory leak"), "kmemleak"),
    (re.compile(r"Kernel panic"), "panic"),
    (re.compile(r"stack-protector|list_add corruption|list_del corruption"), "corruption"),
    (re.compile(r"rcu: INFO: .* detected stalls|blocked for more than \d+ seconds"), "stall/hang"),
    (re.compile(r"HOMALAB-ERROR"), "guest set-up error"),
]

CASE = re.compile(r"^\s*(not ok|ok)\s+(\d+)\b\s*-?\s*(.*)$")
PLAN = re.compile(r"^\s*1\.\.(\d+)\s*$")
# A lab test script (kernel/selftests/lab/lib.sh) runs several programs in
# one --host step; this line starts each one's output, named.
PART = re.compile(r"^# HOMALAB-STEP (.*)$")


def split_parts(where, text):
    """Split a step's output at HOMALAB-STEP lines: [(where, text)], the
    script's own output first, then each program's, named after it."""
    parts = [(where, [])]
    for line in text.splitlines():
        m = PART.match(line)
        if m:
            parts.append((f"{where}: {m.group(1)}", []))
        else:
            parts[-1][1].append(line)
    return [(w, "\n".join(lines)) for w, lines in parts]


def find_splats(text):
    """Return a list of (kind, line) for every kernel report in @text."""
    found = []
    for line in text.splitlines():
        for rx, kind in SPLATS:
            if rx.search(line):
                found.append((kind, line.strip()))
                break
    return found


class Cases:
    """Counts KTAP/TAP results over every step of a run.

    A skipped case is neither a pass nor silent: it is listed in `skipped`,
    and the run fails on it unless the caller allows skips for a reason.
    `not ok ... # SKIP` is a failure (TAP's SKIP directive belongs on `ok`).
    """

    def __init__(self):
        self.ok = 0
        self.failed = []
        self.skipped = []
        self.problems = []

    def add_output(self, where, text):
        """Count the top-level cases in one step's output: each program's
        (split_parts) on its own, with its own plan."""
        for w, t in split_parts(where, text):
            self._add_program(w, t)

    def _add_program(self, where, text):
        """Count the top-level cases in one program's output; check its plan."""
        plan = None
        seen = 0
        for line in text.splitlines():
            if line.startswith((" ", "\t")):
                continue        # subtests: their parent line carries the result
            m = PLAN.match(line)
            if m and plan is None:
                plan = int(m.group(1))
                continue
            m = CASE.match(line)
            if not m:
                if line.startswith("Bail out!"):
                    self.problems.append(f"{where}: {line}")
                continue
            seen += 1
            status, desc = m.group(1), m.group(3)
            if status == "not ok":
                self.failed.append(f"{where}: {line.strip()}")
            elif re.search(r"#\s*SKIP", desc, re.I):
                self.skipped.append(f"{where}: {line.strip()}")
            else:
                self.ok += 1
        if plan is not None and seen != plan:
            self.problems.append(f"{where}: planned {plan} cases, reported {seen}")
        elif plan is None and seen:
            self.problems.append(f"{where}: {seen} case(s) but no plan line (1..N)")
