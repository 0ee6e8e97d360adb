"""runner.show.versions: a row and a point per version, in version order, never pooled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from runner.analysis import versions as axes
from runner.results.load import load_sweeps
from runner.results.summary import load_runs
from runner.show.tables import versions
from tests.support.crafted import write_results

ROOT = Path(__file__).resolve().parents[3]
GO = {"go": "go version go1.26.8 linux/amd64", "build": "go-build"}


def _results(tmp_path: Path) -> Path:
    """go installed (1.26.8) and go@1.9, go@1.18.10, go@1.26.8, each at N=1 and 10k, one run."""
    out = tmp_path / "res"
    cells = {
        ("go", 1): [2.2],
        ("go", 10000): [30.5],
        ("go@1.18.10", 1): [1.8],
        ("go@1.18.10", 10000): [28.6],
        ("go@1.26.8", 1): [2.2],
        ("go@1.26.8", 10000): [30.6],
        ("go@1.9", 1): [1.5],
        ("go@1.9", 10000): [None],
    }
    tools = {v: {"go": f"go version go{v.split('@')[1]} linux/amd64"} for v, _ in cells if "@" in v}
    write_results(out, "vm", cells, versions={"go": GO, **tools})
    rows = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    for row in rows:
        if "@" in row["variant"]:
            row["version_of"], version = row["variant"].split("@")
            row["chosen_version"] = {"go": version}
    (out / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def test_points_are_in_version_order_with_the_installed_build_at_its_version(tmp_path):
    runs = load_runs([_results(tmp_path)])
    (base, points), *_ = axes.axes(runs).items()
    assert base == "go"
    assert [(p.version, p.installed) for p in points] == [
        ("1.9", False),
        ("1.18.10", False),
        ("1.26.8", False),
        ("1.26.8", True),
    ]


def test_the_table_has_a_row_per_version_and_the_failed_cell_says_why(tmp_path):
    out = _results(tmp_path)
    text = versions.markdown(load_runs([out]), "peak_rss", load_sweeps([out]))
    rows = [line.split(" | ")[0] for line in text.splitlines() if line.startswith("| 1")]
    assert rows == ["| 1.9", "| 1.18.10", "| 1.26.8", "| 1.26.8 (installed)"]
    assert "*failed: thread limit" in text and "**28.6 MB** · 2.62 KiB/task" in text


def test_plot_and_report_show_the_versions(tmp_path):
    out = _results(tmp_path)
    env = {**os.environ, "MEMRUN_TASKS": str(tmp_path / "none"), "MEMRUN_BUILD": str(tmp_path / "b")}
    figs = tmp_path / "figs"
    p = subprocess.run(
        [sys.executable, "-m", "runner", "plot", str(out), "--out", str(figs)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    svg = (figs / "versions-go-peak_rss.svg").read_text()
    assert "1.18.10" in svg and "installed" in svg and "N = 10k" in svg
    bars = (figs / "bars-n10000-peak_rss.svg").read_text()
    assert ">go<" in bars and "go@" not in bars  # versions have their own figure, not 3 more bars
    p = subprocess.run(
        [sys.executable, "-m", "runner", "report", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    # the versions' own section (before the table, as on the page) has a row per version; the
    # table of the installed builds has none
    versions, _ = p.stdout.split("| go |", 1)
    assert "Across versions" in versions and "| 1.18.10 |" in versions
    assert "go@" not in p.stdout


def test_compare_pairs_each_version_with_the_same_version(tmp_path):
    base, other = _results(tmp_path / "a"), _results(tmp_path / "b")
    env = {**os.environ, "MEMRUN_TASKS": str(tmp_path / "none"), "MEMRUN_BUILD": str(tmp_path / "b")}
    p = subprocess.run(
        [sys.executable, "-m", "runner", "compare", str(base), str(other)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    rows = [line for line in p.stdout.splitlines() if line.startswith("| go")]
    names = [line.split(" |")[0] for line in rows]
    assert {"| go@1.18.10", "| go@1.26.8", "| go"} <= set(names)  # a row per version, none pooled
