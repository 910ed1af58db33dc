"""Writing a result set's summary.txt and latency-CDF PNG."""
from . import plot, results

PNG_NAME = "latency_cdf.png"
SUMMARY_NAME = "summary.txt"


def write(records, outdir, problems=(), cpu_samples=()):
    """Writes both files into @outdir and prints the summary.

    @problems: reasons, found elsewhere, why the set is not clean; they
    are listed at the end of summary.txt. Returns every problem, those
    and the ones of the records.
    """
    outdir.mkdir(parents=True, exist_ok=True)
    text, _ = results.summary(records, cpu_samples)
    png = outdir / PNG_NAME
    problems = list(problems) + results.suite_problems(records)
    if records:
        plot.plot(records, png)
    else:
        # A lab run that produced nothing: say so instead of a plot error.
        png.unlink(missing_ok=True)
        problems.append("no records: no run produced results")
    if not png.is_file() or png.stat().st_size == 0:
        problems.append(f"missing output: {png}")
    if problems:
        text += "\nPROBLEMS (runs with problems are left out of the ratios):\n" + \
            "".join(f"  {p}\n" for p in problems)
    (outdir / SUMMARY_NAME).write_text(text)
    print(text, end="")
    print(f"plot: {png}")
    return problems
