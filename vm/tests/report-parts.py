#!/usr/bin/env python3
"""The harness counts each program of a lab script on its own.

A lab script (kernel/selftests/lab/lib.sh) runs several programs in one
--host step and names each one's output with a "# HOMALAB-STEP" line;
vm/homalab/report.py splits the step's output there and checks each
program's plan and cases by itself, naming the program in what it reports.
"""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from homalab.report import Cases, split_parts  # noqa: E402

WHERE = "step 1 (host: sh lab/x.sh)"


def cases(text):
    c = Cases()
    c.add_output(WHERE, text)
    return c


class SplitParts(unittest.TestCase):
    def test_names_each_program(self):
        parts = split_parts(WHERE, "KTAP version 1\n# HOMALAB-STEP g0: a\n1..1\n"
                            "ok 1 x\n# HOMALAB-STEP host: b c\n1..1\nok 1 y")
        self.assertEqual([w for w, _ in parts],
                         [WHERE, f"{WHERE}: g0: a", f"{WHERE}: host: b c"])
        self.assertEqual(parts[1][1], "1..1\nok 1 x")

    def test_output_without_markers_is_one_program(self):
        self.assertEqual(split_parts(WHERE, "1..1\nok 1 x"), [(WHERE, "1..1\nok 1 x")])

    def test_marker_must_start_the_line(self):
        # A program that prints the words is not split.
        self.assertEqual(len(split_parts(WHERE, "1..1\nok 1 x # HOMALAB-STEP g0: y")), 1)


class CountsPerProgram(unittest.TestCase):
    def test_two_programs_with_their_own_plans_pass(self):
        c = cases("# HOMALAB-STEP g0: a\n1..2\nok 1 x\nok 2 y\n"
                  "# HOMALAB-STEP g1: b\n1..1\nok 1 z")
        self.assertEqual((c.ok, c.failed, c.problems), (3, [], []))

    def test_a_short_program_is_named(self):
        c = cases("# HOMALAB-STEP g0: a\n1..1\nok 1 x\n"
                  "# HOMALAB-STEP g0: b\n1..2\nok 1 y")
        self.assertEqual(c.problems, [f"{WHERE}: g0: b: planned 2 cases, reported 1"])

    def test_failed_case_is_named(self):
        c = cases("# HOMALAB-STEP g1: b\n1..1\nnot ok 1 z")
        self.assertEqual(c.failed, [f"{WHERE}: g1: b: not ok 1 z"])

    def test_bail_out_is_a_problem(self):
        c = cases("# HOMALAB-STEP g0: exit 3\nBail out! g0: exit 3: exited with status 3")
        self.assertEqual(c.problems, [f"{WHERE}: g0: exit 3: Bail out! g0: exit 3: "
                                      "exited with status 3"])

    def test_scripts_own_cases_count_too(self):
        c = cases("KTAP version 1\n1..1\nok 1 own\n# HOMALAB-STEP g0: a\n1..1\nok 1 x")
        self.assertEqual((c.ok, c.problems), (2, []))


if __name__ == "__main__":
    unittest.main(verbosity=2)
