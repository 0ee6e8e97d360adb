"""`memrun explain` on stored runs: the table of parts per task, its notes, and one-line errors."""

from __future__ import annotations

from click.testing import CliRunner

from runner.cli import main
from runner.results import ResultsDir
from tests.analysis.test_explain import KiB, MiB, run, snapshot


def test_explain_prints_the_split_of_the_stored_runs(tmp_path):
    (tmp_path / "res").mkdir()
    store = ResultsDir(tmp_path / "res")
    store.add_run(run(1, snapshot(0, MiB, 0, MiB, None), 2 * MiB, None))
    store.add_run(run(100, snapshot(100 * 8 * KiB, MiB + 100 * KiB, 0, MiB, None), 2 * MiB + 900 * KiB, None))
    store.add_run(run(1000, snapshot(0, 9 * MiB, 0, 0, None, t=9.0), 9 * MiB, None))  # after the sleep
    out = CliRunner().invoke(main, ["explain", str(tmp_path / "res")])
    assert out.exit_code == 0, out.output
    row = next(line for line in out.output.splitlines() if line.startswith("| v | 100 |"))
    assert row.startswith("| v | 100 | 8.00 | 1.00 | 0.00 | 0.00 | 9.00 | 9.00 | 0.00 (+0.0%) |"), row
    assert "v at N=1,000: 1 snapshot(s) outside the hold, left out" in out.output


def test_explain_without_snapshots_says_so_in_one_line(tmp_path):
    (tmp_path / "res").mkdir()
    store = ResultsDir(tmp_path / "res")
    store.add_run(run(1, snapshot(0, MiB, 0, 0, None), MiB, None).replace(verdict="invalid"))
    out = CliRunner().invoke(main, ["explain", str(tmp_path / "res")])
    assert out.exit_code == 2 and "no valid runs with a snapshot" in out.output
    bad = CliRunner().invoke(main, ["explain", str(tmp_path / "res"), "--n", "x"])
    assert bad.exit_code == 2 and "--n" in bad.output


def test_a_split_whose_parts_miss_the_peak_is_flagged_and_named(tmp_path):
    """Memory that grew after the hold's snapshot (peak 20 KiB a task, the parts 9): the gap is
    shown, flagged, and the split named under the table as one that does not add up; a split
    that adds up is not flagged."""
    (tmp_path / "res").mkdir()
    store = ResultsDir(tmp_path / "res")
    store.add_run(run(1, snapshot(0, MiB, 0, MiB, None), 2 * MiB, None))
    for n, peak in ((100, 2000 * KiB), (1000, 9000 * KiB)):  # 20 KiB a task at 100, 9 at 1,000
        store.add_run(run(n, snapshot(n * 8 * KiB, MiB + n * KiB, 0, MiB, None), 2 * MiB + peak, None))
    out = CliRunner().invoke(main, ["explain", str(tmp_path / "res")])
    assert out.exit_code == 0, out.output
    grew = next(line for line in out.output.splitlines() if line.startswith("| v | 100 |"))
    held = next(line for line in out.output.splitlines() if line.startswith("| v | 1,000 |"))
    assert "11.00 (+55.0%) ⚠" in grew and "⚠" not in held, (grew, held)
    assert "⚠ 1 of 2 splits do not add up" in out.output and "(RSS: v at 100)" in out.output, out.output
