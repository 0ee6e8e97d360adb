"""`memrun report` / `memrun plot` on results of several machines: one group per label, never pooled."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from runner.results import load_sweeps
from runner.results.summary import load_runs
from runner.show.figures import labelled as labelled_figures
from runner.show.tables import labelled
from runner.show.tables.report import render
from tests.support.cli import show
from tests.support.crafted import CLOUD, LAPTOP, write_results
from tests.support.figures import svg_text

REFERENCE = Path(__file__).resolve().parents[2] / "fixtures" / "reference-10"  # first reference sweep, frozen
POOLED = ("34.2 MB", "34.3 MB")


@pytest.fixture
def two_hosts(tmp_path) -> list[Path]:
    return [
        write_results(tmp_path / "laptop", "laptop", LAPTOP),
        write_results(tmp_path / "cloud", "vm7", CLOUD),
    ]


def _load(paths):
    return load_runs(paths), load_sweeps(paths)


def test_report_of_two_hosts_has_a_column_group_per_host_and_no_pooled_median(two_hosts):
    runs, sweeps = _load(two_hosts)
    md = labelled.report(runs, "md", sweeps=sweeps)
    assert "2 labels (laptop, vm7), never pooled" in md and "One column group per label" in md
    header = next(line for line in md.splitlines() if line.startswith("| variant |"))
    assert header == "| variant | laptop · 1 | laptop · 10k | vm7 · 1 | vm7 · 10k |"
    go = next(line for line in md.splitlines() if line.startswith("| go |")).split("|")[2:-1]
    assert go[1].strip().startswith("**28.2 MB** (28.0–28.5)") and go[3].strip().startswith("**40.5 MB**")
    assert not any(p in md for p in POOLED)
    assert "- laptop: laptop" in md and "- vm7: vm7" in md and "worked out within each label" in md


def test_csv_and_json_of_two_hosts_carry_the_label(two_hosts):
    runs, sweeps = _load(two_hosts)
    table = pd.read_csv(io.StringIO(labelled.report(runs, "csv", sweeps=sweeps)))
    go = table[(table.variant == "go") & (table.n == 10_000)].set_index("label")
    assert go.loc["laptop", "median_bytes"] == 28.2e6 and go.loc["vm7", "median_bytes"] == 40.5e6
    recs = json.loads(labelled.report(runs, "json", sweeps=sweeps))
    assert {r["label"] for r in recs} == {"laptop", "vm7"} and len(recs) == 6


def test_one_label_reads_exactly_as_before():
    runs, sweeps = _load([REFERENCE])
    for fmt in ("md", "csv", "json"):
        assert labelled.report(runs, fmt, sweeps=sweeps) == render(runs, fmt, sweeps=sweeps)


def test_report_cli_on_the_reference_results_is_unchanged(tmp_path):
    """`memrun report plots/data` prints what report.render() always printed, byte for byte."""
    p = show("report", str(REFERENCE), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    runs, sweeps = _load([REFERENCE])
    assert p.stdout == render(runs, "md", sweeps=sweeps) + "\n"


def test_a_version_change_within_one_label_is_shown_apart(tmp_path):
    old = write_results(tmp_path / "r", "vm", {("go", 1): [2.0, 2.1]}, sweep_id="a")
    write_results(
        old,
        "vm",
        {("go", 1): [2.6]},
        sweep_id="b",
        versions={"go": {"go": "go version go1.27.0 linux/amd64", "build": "go-build"}},
    )
    runs, sweeps = _load([old])
    md = labelled.report(runs, "md", sweeps=sweeps)
    assert "| go [go 1.26.8] |" in md and "| go [go 1.27.0] |" in md
    assert "Runs of different toolchain versions or settings are shown apart (go)." in md


def test_plot_draws_each_label_apart_and_says_so(two_hosts, tmp_path):
    written, note = labelled_figures.plot(*_load(two_hosts), tmp_path / "plots")
    names = {p.name for p in written}
    assert {"bars-n10000-peak_rss-laptop.svg", "bars-n10000-peak_rss-vm7.svg"} <= names
    assert "loglog-peak_rss-vm7.png" in names and "never pooled" in note
    laptop = svg_text(tmp_path / "plots" / "bars-n10000-peak_rss-laptop.svg")
    assert "laptop: Peak RSS of the process tree: 10k concurrent tasks" in laptop
    assert "28.2 MB" in laptop and "40.5 MB" not in laptop and not any(p in laptop for p in POOLED)


def test_plot_cli_on_two_hosts(two_hosts, tmp_path):
    p = show("plot", *map(str, two_hosts), "--out", str(tmp_path / "figs"), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "2 labels (laptop, vm7), never pooled" in p.stderr and "Figures per label" in p.stderr
    assert str(tmp_path / "figs" / "bars-n1-peak_rss-vm7.png") in p.stdout.splitlines()
