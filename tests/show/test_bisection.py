"""runner.show.bisection: the line of each probed version and the summary of a search."""

from __future__ import annotations

from types import SimpleNamespace

from runner.bisection import Outcome, Probe
from runner.results import ResultsDir
from runner.show.bisection import probe_line, summary_lines

KIB = 1024


def _probe(version: str, per_task: float | None, runs: int = 1) -> Probe:
    return Probe(version, per_task, 50e6, 1e6, runs, 0.02 if runs > 1 else None, problem="no valid run")


def test_a_probed_version_with_a_figure_and_one_without():
    assert probe_line(_probe("1.2.0", 2 * KIB, runs=3), 10_000, "peak_rss") == (
        "  1.2.0         2.000 KiB/task at N=10,000  (peak_rss 50.0 MB at N=10,000, 1.0 MB at N=1; "
        "3 runs, spread 2.0%)"
    )
    assert probe_line(_probe("1.3.0", None), 10_000, "peak_rss") == "  1.3.0        no figure: no valid run"


def test_the_summary_names_the_first_changed_version_and_where_the_runs_are(tmp_path):
    outcome = Outcome(["1.0.0", "1.5.0", "2.0.0"], 0.1)
    outcome.probes = [_probe("1.0.0", 2 * KIB), _probe("2.0.0", 6 * KIB), _probe("1.5.0", 6 * KIB)]
    outcome.judged = {"2.0.0": True, "1.5.0": True}
    outcome.first_changed, outcome.last_same = "1.5.0", "1.0.0"
    prober = SimpleNamespace(
        built={"1.0.0", "2.0.0"}, up_to_date={"1.5.0"}, variant=SimpleNamespace(name="v")
    )
    lines = summary_lines(outcome, prober, "lib", 10_000, ResultsDir(tmp_path))  # type: ignore[arg-type]
    assert lines[1] == "versions tried, in order (lib; per-task cost at N=10,000, change from 1.0.0):"
    assert lines[2:5] == [
        "  1.0.0        2.000 KiB/task, 1 run(s) at each N",
        "  2.0.0        6.000 KiB/task (+200.0%), 1 run(s) at each N  changed",
        "  1.5.0        6.000 KiB/task (+200.0%), 1 run(s) at each N  changed",
    ]
    assert "(2 built now, 1 already up to date)" in lines[5]
    assert lines[6] == "first changed: lib 1.5.0 (2.000 KiB/task at 1.0.0 → 6.000 at 1.5.0, +200.0%)"
    assert lines[-1] == f"runs stored in {tmp_path}: memrun report {tmp_path}"
