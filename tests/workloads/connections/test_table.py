"""The connections workload in tables and figures: user and kernel KiB per connection, the load
client's own cost, titles that say the workload, and never a table or figure of two workloads."""

from __future__ import annotations

import pytest

from runner.analysis.records import records
from runner.results import load_sweeps
from runner.results.summary import load_runs
from runner.show.figures.charts import plot_results
from runner.show.tables import report
from runner.workload import get
from runner.workloads.connections.table import client_line
from tests.support.cli import show
from tests.support.crafted import write_results

CELLS = {("go", 1): [3.0], ("go", 10_000): [43.96], ("python", 1): [20.0], ("python", 10_000): [70.0]}
KERNEL = {("go", 1): 0.5, ("go", 10_000): 40.5, ("python", 1): 0.6, ("python", 10_000): 40.6}


@pytest.fixture
def both(tmp_path):
    """A directory holding a sleep sweep and a connections sweep of the same variants."""
    d = tmp_path / "both"
    write_results(d, "box", {("go", 1): [2.0], ("go", 10_000): [30.0]})
    write_results(d, "box", CELLS, sweep_id="conn", workload="connections", kernel=KERNEL)
    return d


def test_the_table_gives_user_and_kernel_kib_per_connection_and_the_client(both):
    from runner.results import workloads

    runs, sweeps = workloads.select(load_runs([both]), load_sweeps([both]), get("connections"))
    recs = {(r["variant"], r["n"]): r for r in records(runs)}
    go = recs[("go", 10_000)]
    assert go["per_task_kib"] == pytest.approx((43.96e6 - 3e6) / 10_000 / 1024)
    assert go["kernel_per_task_kib"] == pytest.approx(40e6 / 10_000 / 1024)
    assert go["client_peak_bytes"] == 4e7 + 1e6 and go["workload"] == "connections"
    md = report.render(runs, "md", sweeps=sweeps)
    assert "4.00 KiB/conn · kernel 3.91 KiB/conn · ready 0.50 s" in md
    assert "with N idle TCP connections" in md and "KiB/conn = (M(N) − M(1)) / N" in md
    assert "memrun's load client" in md and "41.0 MB · CPU 0.03 s · open in 0.25 s" in md


def test_figures_say_the_workload_and_split_user_from_kernel(both, tmp_path):
    from runner.results import workloads

    runs, sweeps = workloads.select(load_runs([both]), load_sweeps([both]), get("connections"))
    written = {p.name for p in plot_results(runs, sweeps, tmp_path / "plots", formats=("svg",))}
    assert written == {
        "connections-bars-n1-peak_rss.svg",
        "connections-bars-n10000-peak_rss.svg",
        "connections-loglog-peak_rss.svg",
        "connections-per-task-peak_rss.svg",
        "connections-per-connection.svg",
    }
    bars = (tmp_path / "plots" / "connections-bars-n10000-peak_rss.svg").read_text()
    assert "10k idle TCP connections" in bars
    split = (tmp_path / "plots" / "connections-per-connection.svg").read_text()
    assert "Memory per idle TCP connection: user and kernel" in split
    assert "4.00 + 3.91 KiB" in split  # go: 40.96 MB more RSS and 40 MB more kernel at 10k


def test_report_and_plot_never_mix_workloads(both, tmp_path):
    sleep = show("report", str(both), tmp_path=tmp_path)
    conn = show("report", str(both), "--workload", "connections", tmp_path=tmp_path)
    assert sleep.returncode == 0 and conn.returncode == 0, sleep.stderr + conn.stderr
    assert "30.0 MB" in sleep.stdout and "python" not in sleep.stdout and "KiB/conn" not in sleep.stdout
    assert "44.0 MB" in conn.stdout and "30.0 MB" not in conn.stdout and "KiB/conn" in conn.stdout
    out = str(tmp_path / "p")
    plots = show("plot", str(both), "--out", out, "--workload", "connections", tmp_path=tmp_path)
    assert plots.returncode == 0, plots.stderr
    assert all("/connections-" in line for line in plots.stdout.split())


def test_compare_never_mixes_workloads(both, tmp_path):
    other = tmp_path / "other"
    write_results(other, "box", {("go", 1): [2.0], ("go", 10_000): [30.0]}, sweep_id="s2")
    p = show("compare", str(both), str(other), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "1.00" in p.stdout and "44.0" not in p.stdout  # go 30 MB against 30 MB, sleep only
    q = show("compare", str(both), str(other), "--workload", "connections", tmp_path=tmp_path)
    assert q.returncode == 2 and "holds no connections runs" in q.stderr


def test_a_directory_without_the_workload_says_which_it_has(tmp_path):
    d = write_results(tmp_path / "old", "box", {("go", 1): [2.0]})
    p = show("report", str(d), "--workload", "connections", tmp_path=tmp_path)
    assert p.returncode == 2 and "no connections runs" in p.stderr and "--workload sleep" in p.stderr


def test_client_line():
    client = {
        "summary": {"connected": 10_000, "dropped": 0, "connect_errors": 0, "connect_s": 0.8},
        "cgroup_peak": 42_000_000,
        "user_s": 0.05,
        "sys_s": 1.25,
    }
    assert client_line(10_000, client) == (
        "load client: connected 10,000 of 10,000, dropped by the server 0, connect errors 0, "
        "all open after 0.80 s, its cgroup peak 42.0 MB, CPU 0.05 s user + 1.25 s sys"
    )


def test_the_html_method_describes_the_workload_shown(both):
    from runner.results import workloads
    from runner.show.exports import htmlpage

    for workload, says, never in (
        ("connections", "accepts N TCP connections", "spawns N tasks that each sleep"),
        ("sleep", "spawns N tasks that each sleep", "accepts N TCP connections"),
    ):
        runs, sweeps = workloads.select(load_runs([both]), load_sweeps([both]), get(workload))
        page = htmlpage.page(runs, sweeps)
        assert says in page and never not in page, workload
        counted = "none closed or reset by the server" in page
        assert counted == (workload == "connections"), workload
