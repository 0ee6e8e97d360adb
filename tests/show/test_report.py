"""report.render(): the variants x N table from synthetic stored runs (no task is run)."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pandas as pd
import pytest

from runner.show.report import render
from runner.show.text import n_label

# The 2023 article's final table (MB), with its failures, as the article published it.
ARTICLE = {
    "rust-threads": (2.5, 48.3, None, None),
    "rust-tokio": (3.0, 4.6, 23.7, 213.6),
    "rust-async-std": (3.0, 8.1, 54.6, 527.7),
    "go": (1.8, 28.6, 269, 2658),
    "java-threads": (38.2, 244.4, None, None),
    "java-virtual": (40.1, 78.5, 223, 1154),
    "dotnet": (131.1, 131.4, 130.9, 461),
    "node": (36.2, 48.3, 112.5, 494),
    "python": (17.3, 40.0, 240.5, 2232),
    "elixir": (57.4, 99.4, 445, 4009),
}
NS = (1, 10_000, 100_000, 1_000_000)
MAP_COUNT = "thread limit: vm.max_map_count (65530)"
LATE = "spawn outlasted sleep: ready after 132 s > sleep 10 s"
TOKIO_1M = (200.0e6, 213.6e6, 231.0e6)  # 14% spread: flagged


def run(variant: str, n: int, verdict: str = "valid", peak: float | None = None, **kw: Any) -> dict[str, Any]:
    row = {
        "variant": variant,
        "n": n,
        "repeat": 0,
        "verdict": verdict,
        "reason": None,
        "peak_rss": peak,
        "cgroup_peak": None if peak is None else peak * 1.2,
        "sampled_peak_rss": peak,
        "ready_s": 0.8 if verdict == "valid" else None,
        "sleep_s": 10.0,
        "superseded": False,
        "started_at": "2024-05-01T10:00:00+00:00",
    }
    row.update(kw)
    return row


def article_runs() -> pd.DataFrame:
    """The article's table as stored runs, plus the awkward cases a real sweep produces:
    a failed cell (no number), an invalid one (a number that must not be shown), repeats within
    and beyond 5%, and a cell re-run with a longer sleep by --sleep auto."""
    rows = []
    for variant, values in ARTICLE.items():
        for n, value in zip(NS, values, strict=True):
            if value is not None and (variant, n) not in {("rust-tokio", 1_000_000), ("elixir", 1_000_000)}:
                rows.append(run(variant, n, peak=value * 1e6))
    rows.append(run("rust-threads", 100_000, "failed", reason=MAP_COUNT, signal="SIGABRT"))
    rows.append(run("rust-threads", 1_000_000, "failed", reason=MAP_COUNT, signal="SIGABRT"))
    rows.append(run("java-threads", 100_000, "invalid", 300e6, reason=LATE, ready_s=132.0))
    rows.append(run("java-threads", 1_000_000, "failed", reason="thread limit: kernel.pid_max (32768)"))
    for i, peak in enumerate(TOKIO_1M):
        rows.append(run("rust-tokio", 1_000_000, peak=peak, repeat=i, ready_s=0.5 + i * 0.1))
    rows.append(run("go", 100_000, peak=271e6, repeat=1))  # second repeat, within 5%
    rows.append(run("elixir", 1_000_000, "invalid", 3900e6, reason=LATE, superseded=True, ready_s=31.0))
    rows.append(run("elixir", 1_000_000, peak=4009e6, sleep_s=40.0, ready_s=31.0))
    return pd.DataFrame(rows)


SWEEPS = [
    {
        "sweep_id": "s1",
        "started_at": "2024-05-01T09:58:00+00:00",
        "host": "bench1",
        "cpu_model": "Intel(R) Xeon(R) CPU E3-1505M v5 @ 2.80GHz",
        "cpus": 8,
        "ram_bytes": 32_000_000_000,
        "kernel": "5.15.0-91-generic",
    }
]


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
