#!/usr/bin/python3
"""Quick test (no guest): bench/analyze on synthetic results.

Ratios are the median of per-run Homa/TCP ratios with min and max; a run
with errors is left out and fails --check; bad input gives a clear error
and exit status 2.
"""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]
ANALYZE = BENCH / "analyze"
sys.path.insert(0, str(BENCH))

from benchlib import cpu, results  # noqa: E402

HOMA_P50 = [50.0, 60.0, 40.0, 55.0, 45.0]      # TCP p50 is 100: ratios .5 .6 .4 .55 .45
HOMA_GOODPUT = [2e6, 3e6, 1e6, 4e6, 2.5e6]    # TCP goodput is 2e6: ratios 1 1.5 .5 2 1.25
HOMA_MIXED_P99 = [300.0, 100.0, 200.0, 400.0, 250.0]  # TCP p99 is 200


def record(run, workload, cls, transport, p50=100.0, p99=None, goodput=1e6, size=100):
    p99 = p99 if p99 is not None else 4 * p50
    return {"run": run, "workload": workload, "class": cls, "transport": transport,
            "size": size, "outstanding": 1, "duration_s": 1.0, "count": 1000,
            "sent": 1010, "answered": 1010, "verified": 1010, "rpc_errors": 0,
            "bad_payload": 0, "unanswered": 0, "errors": 0, "error": "",
            "rpcs_per_s": 1000.0, "goodput_Bps": goodput, "p50_us": p50,
            "p90_us": 2 * p50, "p99_us": p99, "p999_us": p99 * 1.5,
            "min_us": p50 / 2, "max_us": p99 * 2,
            "cdf_us": [[p, p50 / 2 + p * p50 / 50] for p in range(0, 101, 10)]}


def suite_records():
    recs = []
    for i in range(5):
        run = i + 1
        recs += [record(run, "echo_100B", "short", "homa", p50=HOMA_P50[i]),
                 record(run, "echo_100B", "short", "tcp", p50=100.0),
                 record(run, "echo_1MB", "long", "homa", p50=1e5, goodput=HOMA_GOODPUT[i],
                        size=1000000),
                 record(run, "echo_1MB", "long", "tcp", p50=1e5, goodput=2e6, size=1000000),
                 record(run, "mixed", "short", "homa", p50=50.0, p99=HOMA_MIXED_P99[i]),
                 record(run, "mixed", "short", "tcp", p50=50.0, p99=200.0),
                 record(run, "mixed", "long", "homa", p50=1e5, size=1000000),
                 record(run, "mixed", "long", "tcp", p50=1e5, size=1000000)]
    return recs


class AnalyzeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def analyze(self, data, *args, raw=None):
        path = self.dir / "results.json"
        path.write_text(raw if raw is not None else json.dumps(data))
        return subprocess.run([str(ANALYZE), str(path), *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)

    def test_ratios_are_median_of_per_run_ratios(self):
        recs = suite_records()
        r = results.ratio(recs, "echo_100B", "short", "p50_us")
        self.assertEqual(r["runs"], 5)
        self.assertAlmostEqual(r["median"], 0.5)
        self.assertAlmostEqual(r["min"], 0.4)
        self.assertAlmostEqual(r["max"], 0.6)
        g = results.ratio(recs, "echo_1MB", "long", "goodput_Bps")
        self.assertEqual((g["median"], g["min"], g["max"]), (1.25, 0.5, 2.0))
        m = results.ratio(recs, "mixed", "short", "p99_us")
        self.assertEqual((m["median"], m["min"], m["max"]), (1.25, 0.5, 2.0))

    def test_cli_writes_summary_and_png(self):
        res = self.analyze({"meta": {}, "records": suite_records()}, "--check")
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        summary = (self.dir / "summary.txt").read_text()
        self.assertIn("Homa/TCP median latency, 100 B echo: 0.500  [min 0.400 .. max 0.600]"
                      "  over 5 run(s)", summary)
        self.assertIn("Homa/TCP goodput, 1 MB echo: 1.250  [min 0.500 .. max 2.000]", summary)
        self.assertIn("mixed workload: 1.250  [min 0.500 .. max 2.000]", summary)
        png = self.dir / "latency_cdf.png"
        self.assertTrue(png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n")

    def test_run_with_errors_fails_check_and_is_left_out(self):
        recs = suite_records()
        bad = recs[0]           # run 1, echo_100B homa (ratio 0.5)
        bad.update(errors=3, bad_payload=3, verified=1007, error="response does not match")
        res = self.analyze({"records": recs}, "--check")
        self.assertEqual(res.returncode, 1)
        self.assertIn("run 1 echo_100B/short/homa: response does not match", res.stdout)
        r = results.ratio(recs, "echo_100B", "short", "p50_us")
        self.assertEqual(r["runs"], 4)
        self.assertAlmostEqual(r["median"], 0.5)    # median of .6 .4 .55 .45
        # Without --check the summary is still written, exit 0.
        self.assertEqual(self.analyze({"records": recs}).returncode, 0)

    def test_no_records_is_a_problem_not_a_crash(self):
        res = self.analyze({"records": []}, "--check")
        self.assertEqual(res.returncode, 1, res.stdout + res.stderr)
        self.assertIn("no records: no run produced results", res.stdout)
        self.assertNotIn("Traceback", res.stderr)

    def test_missing_transport_fails_check(self):
        recs = [r for r in suite_records() if not (r["workload"] == "mixed" and
                                                   r["transport"] == "tcp")]
        res = self.analyze({"records": recs}, "--check")
        self.assertEqual(res.returncode, 1)
        self.assertIn("workload mixed: only homa ran", res.stdout)
        self.assertIn("over 0 run(s)", res.stdout)

    def test_statistics_checked(self):
        recs = suite_records()
        recs[1]["p90_us"] = recs[1]["p99_us"] * 2     # p90 > p99
        recs[2]["count"] = 0
        recs[3]["goodput_Bps"] = 0
        res = self.analyze({"records": recs}, "--check")
        self.assertEqual(res.returncode, 1)
        self.assertIn("percentiles out of order", res.stdout)
        self.assertIn("no RPC completed", res.stdout)
        self.assertIn("goodput 0", res.stdout)

    def test_bad_input(self):
        cases = [("not json {", "is not JSON"),
                 (json.dumps([1, 2]), "expected an object with a 'records' list"),
                 (json.dumps({"records": [{"run": 1}]}), "record 0 lacks workload"),
                 (json.dumps({"records": [dict(record(1, "w", "c", "homa"), p50_us="x")]}),
                  "'p50_us' is not a number")]
        for raw, msg in cases:
            res = self.analyze(None, raw=raw)
            self.assertEqual(res.returncode, 2, raw)
            self.assertIn("bench/analyze: error:", res.stderr)
            self.assertIn(msg, res.stderr)
        res = subprocess.run([str(ANALYZE), str(self.dir / "nope.json")],
                             stderr=subprocess.PIPE, text=True)
        self.assertEqual(res.returncode, 2)
        self.assertIn("cannot read", res.stderr)

    def test_cpu_cost_per_rpc_and_mb(self):
        recs = suite_records()
        samples = []
        for run, homa_busy in ((1, 30), (2, 60)):
            for t, busy in (("homa", homa_busy), ("tcp", 40)):
                for g in (0, 1):
                    for phase, user in (("start", 1000), ("end", 1000 + busy)):
                        line = (f"[g{g}] " + cpu.command(run, "echo_1MB", t, phase)
                                .split('"')[1].replace("$(head -1 /proc/stat)",
                                                       f"cpu  {user} 0 0 500 0 0 0 0 0 0"))
                        samples.append(cpu.parse_lab_line(line))
        cost = cpu.costs(samples, recs)
        # Run 1, Homa: 0.6 s busy on two guests, 1010 RPCs of 1 MB each way.
        c = cost[(1, "echo_1MB", "homa")]
        self.assertAlmostEqual(c["busy_s"], 0.6)
        self.assertAlmostEqual(c["us_per_rpc"], 0.6e6 / 1010)
        self.assertAlmostEqual(c["ms_per_mb"], 600 / 2020)
        med, lo, hi, n = cpu.ratio(cost, "echo_1MB", "ms_per_mb")
        self.assertEqual(n, 2)
        for got, want in ((med, 1.125), (lo, 0.75), (hi, 1.5)):
            self.assertAlmostEqual(got, want)
        res = self.analyze({"records": recs, "cpu": samples}, "--check")
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertIn("Homa/TCP CPU per 1 MB transferred, 1 MB echo: 1.125  "
                      "[min 0.750 .. max 1.500]  over 2 run(s)", res.stdout)
        self.assertIn("no CPU samples", self.analyze({"records": recs}).stdout)
        # A run with one guest's end missing has no cost.
        self.assertNotIn((2, "echo_1MB", "tcp"), cpu.costs(samples[:-1], recs))
        for bad in ("[g0] BENCH-CPU 1 w homa start cpu 1 2", "[g0] BENCH-CPU x w t start cpu",
                    "[g0] BENCH-CPU 1 w homa middle cpu 1 2 3 4 5 6 7 8"):
            with self.assertRaises(cpu.BadInput):
                cpu.parse_lab_line(bad)
        self.assertIsNone(cpu.parse_lab_line("[g0] BENCH-JSON {}"))

    def test_fairness_bound(self):
        recs = suite_records()
        for run in (1, 2):
            for t, p99 in (("homa", 3e5), ("tcp", 6e5)):
                recs.append(record(run, "stream", "short", t, p50=1e4, size=20000))
                recs.append(record(run, "stream", "long", t, p50=1e5, p99=p99, size=1000000))
        self.assertEqual(results.fairness(recs, "homa"), [(1, 3.0), (2, 3.0)])
        out = self.analyze({"records": recs}).stdout
        self.assertIn("homa  worst 3.00, median 3.00 over 2 run(s): within the bound", out)
        self.assertIn("tcp   worst 6.00", out)
        recs[-3]["p99_us"] = recs[-3]["p999_us"] = 5e5      # run 2 Homa: 5x
        self.assertIn("OVER THE BOUND", self.analyze({"records": recs}).stdout)

    def test_lab_line_parsing(self):
        rec = record(1, "echo_100B", "short", "tcp")
        line = "[g0] BENCH-JSON " + json.dumps(rec) + "\r\n"
        self.assertEqual(results.parse_lab_line(line), rec)
        self.assertIsNone(results.parse_lab_line("[g0] something else"))
        with self.assertRaises(results.BadInput):
            results.parse_lab_line("[g0] BENCH-JSON {truncated")


if __name__ == "__main__":
    unittest.main(verbosity=2)
