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
