"""`memrun compare BASE OTHER`: ratios, the significance rule, exit status for CI, bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pandas as pd
import pytest

from runner.show import compare
from tests.show.crafted import write_results
from tests.test_cli import _one_line_error
from tests.test_sweep import ROOT, run

BASE = {
    ("go", 1): [2.2, 2.2, 2.3],
    ("go", 10_000): [30.1, 30.3, 30.4],
    ("rust-tokio", 10_000): [7.5, 7.5, 7.6],
    ("python", 10_000): [10.0, 12.0, 14.0],
}
# go 10k: +8.9 %, ranges apart -> larger. rust-tokio 10k: -18.7 % -> smaller. python 10k: +8.3 %
# but within the repeats' spread (ranges overlap) -> not significant. go 1: same.
REGRESSED = {
    ("go", 1): [2.2, 2.3, 2.2],
    ("go", 10_000): [33.0, 33.2, 32.9],
    ("rust-tokio", 10_000): [6.1, 6.0, 6.2],
    ("python", 10_000): [11.0, 13.0, 15.0],
}
NEWER_GO = {"go": {"go": "go version go1.27.1 linux/amd64", "build": "go-build"}}


@pytest.fixture
def dirs(tmp_path):
    base = write_results(tmp_path / "base", "vm", BASE)
    other = write_results(tmp_path / "other", "vm", REGRESSED, sweep_id="s2", versions=NEWER_GO)
    return base, other


def _rows(md: str) -> dict[tuple[str, str], list[str]]:
    out = {}
    for line in md.splitlines():
        if line.startswith("| ") and not line.startswith("| variant"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            out[(cells[0], cells[1])] = cells[2:]
    return out


def test_ratios_verdicts_and_versions(dirs):
    result = compare.compare_dirs(*dirs)
    md = compare.render(result, "md")
    rows = _rows(md)
    assert rows[("go", "10k")][:4] == [
        "30.3 MB (30.1–30.4)",
        "33.0 MB (32.9–33.2)",
        "1.09× (+8.9%)",
        "**larger**",
    ]
    assert rows[("go", "10k")][4] == "go 1.26.8 → 1.27.1"  # the version that differs, in the cell's row
    assert rows[("rust-tokio", "10k")][2:4] == ["0.81× (-18.7%)", "**smaller**"]
    assert rows[("go", "1")][3] == "not significant"
    assert "significant when the ranges [min, max] of the two do not overlap" in md.lower()
    assert "1 larger, 1 smaller, 2 not significant" in md and result.worse


def test_a_difference_within_the_repeats_spread_is_not_significant(dirs):
    rows = {(r.variant, r.n): r for r in compare.compare_dirs(*dirs).rows}
    python = rows[("python", 10_000)]
    assert python.ratio == pytest.approx(13 / 12) and python.ratio - 1 > 0.05  # past the threshold…
    assert python.verdict == "not significant"  # …but [10, 14] and [11, 15] overlap


def test_threshold_decides_when_the_ranges_are_apart(dirs):
    rows = {(r.variant, r.n): r for r in compare.compare_dirs(*dirs, threshold=0.10).rows}
    assert rows[("go", 10_000)].verdict == "not significant"  # +8.9 % < 10 %
    assert rows[("rust-tokio", 10_000)].verdict == "smaller"


def test_csv_and_json(dirs):
    result = compare.compare_dirs(*dirs)
    table = pd.read_csv(io.StringIO(compare.render(result, "csv")))
    go = table[(table.variant == "go") & (table.n == 10_000)].iloc[0]
    assert go.base_median_bytes == 30.3e6 and go.other_median_bytes == 33.0e6 and bool(go.significant)
    recs = json.loads(compare.render(result, "json"))
    assert {r["verdict"] for r in recs} == {"larger", "smaller", "not significant"}
    assert next(r for r in recs if r["variant"] == "go")["version_changes"] == ["go 1.26.8 → 1.27.1"]


@pytest.mark.parametrize(("text", "value"), [("5%", 0.05), ("5", 0.05), ("0.5 %", 0.005), ("0", 0.0)])
def test_threshold_parsing(text, value):
    assert compare.parse_threshold(text) == pytest.approx(value)


def test_cli_exits_1_on_a_regression_past_the_threshold(dirs, tmp_path):
    p = run("compare", *map(str, dirs), tmp_path=tmp_path)
    assert p.returncode == 1, p.stderr
    assert "| go | 10k | 30.3 MB (30.1–30.4) | 33.0 MB (32.9–33.2) | 1.09× (+8.9%) | **larger** |" in p.stdout


def test_cli_exits_0_when_nothing_is_worse(dirs, tmp_path):
    p = run("compare", *map(str, dirs), "--threshold", "10%", tmp_path=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "0.81× (-18.7%) | **smaller**" in p.stdout  # better is not a failure
    swapped = run("compare", str(dirs[1]), str(dirs[0]), "--threshold", "10%", tmp_path=tmp_path)
    assert swapped.returncode == 1 and "1.23× (+23.0%) | **larger**" in swapped.stdout


def test_a_cell_that_lost_its_figure_is_worse(tmp_path):
    base = write_results(tmp_path / "a", "vm", {("go", 1): [2.0], ("go", 10): [3.0]})
    other = write_results(tmp_path / "b", "vm", {("go", 1): [2.0], ("go", 10): [None]})
    result = compare.compare_dirs(base, other)
    assert [r.verdict for r in result.rows] == ["not significant", "no figure in OTHER"] and result.worse
    assert "*failed: thread limit: kernel.pid_max*" in compare.render(result)
    assert not compare.compare_dirs(other, base).worse  # gaining a figure is not a regression


def test_two_machines_compare_and_only_common_cells_count(tmp_path):
    base = write_results(tmp_path / "laptop", "laptop", {("go", 1): [2.0], ("go", 10): [3.0]})
    other = write_results(tmp_path / "vm", "vm", {("go", 1): [2.0], ("node", 1): [40.0]})
    result = compare.compare_dirs(base, other)
    assert [(r.variant, r.n) for r in result.rows] == [("go", 1)]
    md = compare.render(result)
    assert "label laptop" in md and "label vm" in md and "Only in BASE: go 10. Only in OTHER: node 1." in md


@pytest.mark.parametrize("case", ["same", "same-via-file", "no-overlap", "metric", "threshold", "mixed"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, case):
    base = write_results(tmp_path / "a", "vm", {("go", 1): [2.0]})
    other = write_results(tmp_path / "b", "vm", {("node", 1): [40.0]})
    if case == "mixed":  # a second machine's sweep in BASE: its median would pool two machines
        write_results(base, "laptop", {("go", 1): [2.1]}, sweep_id="x")
    args, words = {
        "same": ([base, base], "same directory"),
        "same-via-file": ([base, base / "runs.jsonl"], "same directory"),
        "no-overlap": ([base, other], "no (variant, N) in common"),
        "metric": ([base, other, "--metric", "vsz"], "--metric"),
        "threshold": ([base, other, "--threshold", "lots"], "--threshold"),
        "mixed": ([base, other], "holds runs of 2 labels (vm, laptop)"),
    }[case]
    _one_line_error(run("compare", *map(str, args), tmp_path=tmp_path), words)


@pytest.mark.parametrize("args", [["compare", "--help"], ["report", "--help"], ["sweep", "--help"]])
def test_help_of_the_new_options_imports_no_pandas_or_matplotlib(args):
    code = (
        "import sys\nfrom runner.cli import main\n"
        f"try:\n    main({args!r}, standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.stdout.strip().splitlines()[-1] == "[]", p.stdout + p.stderr
