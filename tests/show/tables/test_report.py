"""report.render(): the variants x N table from synthetic stored runs (no task is run)."""

from __future__ import annotations

import io
import json
import re

import pandas as pd
import pytest

from runner.show.tables.report import render
from runner.show.text import n_label
from tests.support.article import ARTICLE, MAP_COUNT, NS, SWEEPS, article_runs


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    return article_runs()


def _row(md: str, variant: str) -> list[str]:
    line = next(x for x in md.splitlines() if x.startswith(f"| {variant} |"))
    return [c.strip() for c in line.strip("|").split("|")][1:]


def test_md_has_header_numbers_and_legend(runs):
    md = render(runs, "md")
    assert md.splitlines()[0] == "| variant | 1 | 10k | 100k | 1M |"
    tokio = _row(md, "rust-tokio")
    assert tokio[0].startswith("**3.0 MB**") and "KiB/task" not in tokio[0]  # no per-task at N=1
    # (213.6 - 3.0) MB / 1M tasks = 210.6 bytes = 0.21 KiB; spread (231-200)/213.6 = 15%
    assert tokio[3] == "**213.6 MB** (200.0–231.0) ⚠15% · 0.21 KiB/task · spawn 0.60 s"
    assert "spawn 0.80 s" in _row(md, "go")[1]
    assert "MB = 10^6 bytes" in md and "KiB/task" in md.splitlines()[-1]


def test_md_shows_verdict_and_reason_never_a_number_for_bad_cells(runs):
    md = render(runs, "md")
    threads = _row(md, "rust-threads")
    assert threads[2] == f"*failed: {MAP_COUNT}*"
    java = _row(md, "java-threads")[2]
    assert java.startswith("*invalid: spawn outlasted sleep") and "MB" not in java and "300" not in java


def test_md_marks_a_cell_rerun_with_longer_sleep(runs):
    md = render(runs, "md")
    assert _row(md, "elixir")[3].endswith("†40 s")
    assert "other cells slept 10 s" in md
    assert "†" not in _row(md, "go")[3]


def test_md_with_sweeps_names_machine_and_date(runs):
    md = render(runs, "md", sweeps=SWEEPS)
    head = md.splitlines()[0]
    assert "bench1" in head and "Intel Xeon E3-1505M v5" in head and "2024-05-01" in head


def test_csv_round_trips_the_numbers(runs):
    table = pd.read_csv(io.StringIO(render(runs, "csv")))
    assert len(table) == 40  # 10 variants x 4 N, one row each
    cell = table[(table.variant == "rust-tokio") & (table.n == 1_000_000)].iloc[0]
    assert cell.median_bytes == 213.6e6 and cell.min_bytes == 200e6 and cell.max_bytes == 231e6
    assert cell.runs == 3 and cell.valid == 3 and bool(cell.spread_flag)
    assert cell.per_task_bytes == pytest.approx(210.6)
    failed = table[(table.variant == "rust-threads") & (table.n == 100_000)].iloc[0]
    assert failed.verdict == "failed" and failed.reason == MAP_COUNT
    assert pd.isna(failed.median_bytes) and pd.isna(failed.per_task_bytes)
    invalid = table[(table.variant == "java-threads") & (table.n == 100_000)].iloc[0]
    assert invalid.verdict == "invalid" and pd.isna(invalid.median_mb)
    elixir = table[(table.variant == "elixir") & (table.n == 1_000_000)].iloc[0]
    assert elixir.runs == 1 and elixir.sleep_s == 40 and elixir.median_mb == 4009  # superseded run left out


def test_json_records_are_tidy(runs):
    recs = json.loads(render(runs, "json"))
    assert {(r["variant"], r["n"]) for r in recs} == {(v, n) for v in ARTICLE for n in NS}
    go = next(r for r in recs if r["variant"] == "go" and r["n"] == 100_000)
    assert go["median_bytes"] == 270e6 and go["valid"] == 2 and go["spread_flag"] is False
    assert go["reason"] is None and go["metric"] == "peak_rss"


def test_other_metric_and_missing_metric(runs):
    recs = json.loads(render(runs, "json", metric="cgroup_peak"))
    go = next(r for r in recs if r["variant"] == "go" and r["n"] == 1)
    assert go["median_bytes"] == pytest.approx(1.8e6 * 1.2)
    no_cgroup = runs.assign(cgroup_peak=None)
    md = render(no_cgroup, "md", metric="cgroup_peak")
    assert "no cgroup_peak recorded" in _row(md, "go")[0] and not re.search(r"\bnan\b", md)


def test_bad_format_and_metric_are_errors(runs):
    with pytest.raises(ValueError, match="format"):
        render(runs, "xlsx")
    with pytest.raises(ValueError, match="metric"):
        render(runs, "md", metric="vsz")


def test_n_labels():
    assert [n_label(n) for n in (1, 1500, 10_000, 250_000, 1_000_000, 2_500_000)] == [
        "1",
        "1,500",
        "10k",
        "250k",
        "1M",
        "2.5M",
    ]


def test_from_a_results_directory(tmp_path):
    """Through the real store: JSON nulls come back as NaN/None in a DataFrame and must not leak
    as "nan" or 0 into the table."""
    from runner.results import ResultsDir, load_sweeps
    from runner.results.summary import load_runs

    out = ResultsDir(tmp_path)
    out.add_sweep(SWEEPS[0])
    for i, row in enumerate(article_runs().to_dict("records")):
        clean = {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
        out.add_run({**clean, "run_id": f"r{i}", "versions": {"rustc": "1.79"}})
    runs, sweeps = load_runs([tmp_path]), load_sweeps([tmp_path])
    md = render(runs, "md", sweeps=sweeps)
    assert "bench1" in md and not re.search(r"\bnan\b", md, re.IGNORECASE)
    assert _row(md, "rust-threads")[2] == f"*failed: {MAP_COUNT}*"
    assert _row(md, "rust-tokio")[3].startswith("**213.6 MB**")
