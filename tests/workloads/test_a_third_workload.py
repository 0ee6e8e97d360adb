"""A third workload is one module: defined here, inside the test (tasks that each hold a buffer of
16 KiB), registered, and run through the real sweep, report, HTML page and figures on a fake
program of known cost, with no runner module edited."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runner.campaign import CampaignSettings
from runner.inputs import SleepSpec
from runner.results import ResultsDir, load_sweeps
from runner.results.summary import load_runs
from runner.show.exports.htmlpage import page
from runner.show.figures.charts import plot_results
from runner.show.tables.report import render
from runner.sweep import SweepOptions, run_sweep
from runner.workload import Words, Workload
from tests.support.workloads import holder, registered

KIB_EACH = 16

PROGRAM = f"""
import sys, time
n, sleep = int(sys.argv[1]), float(sys.argv[2])
held = [bytearray(b"\\x01" * {KIB_EACH} * 1024) for _ in range(n)]
print(f"ready {{n}}", flush=True)
time.sleep(sleep)
"""


class Buffers(Workload):
    """N buffers held at once: run as a sleep program is, counted in its own words."""

    name = "buffers"
    words = Words("buffers", "buf", "buffer", "held buffers", "hold", "ready", "against N held buffers")
    validity = "A run counts if the program said `ready N` before its sleep ran out and exited 0."
    program_html = "Each program holds N buffers of 16 KiB, then sleeps. memrun records, per run:"

    def execute(self, variant: Any, n: int, sleep: float, settings: Any) -> Any:
        from runner.workloads.sleep.execute import execute

        return execute(self, variant, n, sleep, settings)


@pytest.fixture
def buffers() -> Iterator[Workload]:
    with registered(Buffers()) as workload:
        yield workload


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_workload_defined_here_runs_through_sweep_report_and_plot(buffers, tmp_path):
    variant = holder(tmp_path, "holder", PROGRAM, "buffers", "N buffers of 16 KiB held for SLEEP seconds")

    out = tmp_path / "results"
    opts = SweepOptions(
        CampaignSettings([variant], ResultsDir(out), workload=buffers), [1, 4000], SleepSpec(1.0), 1
    )
    end = run_sweep(opts)
    assert end["cells_run"] == 2 and not end["interrupted"]
    runs, sweeps = load_runs([out]), load_sweeps([out])
    assert set(runs["workload"]) == {"buffers"} and set(runs["verdict"]) == {"valid"}

    table = render(runs, "md")
    per = re.search(r"([\d.]+) KiB/buf", table)
    assert per is not None, table
    assert abs(float(per.group(1)) - KIB_EACH) / KIB_EACH < 0.1, table  # bytearray headers aside
    assert "spawn" not in table.split("\n\n")[0] and "ready" in table

    html = page(runs, sweeps)
    assert "of N held buffers" in html and "holds N buffers of 16 KiB" in html

    written = plot_results(runs, sweeps, tmp_path / "plots")
    names = {Path(p).name for p in written}
    assert names and all(n.startswith("buffers-") for n in names), names
    assert "buffers-loglog-peak_rss.svg" in names
    svg = (tmp_path / "plots" / "buffers-loglog-peak_rss.svg").read_text()
    assert "against N held buffers" in svg
    bars = (tmp_path / "plots" / "buffers-bars-n1-peak_rss.svg").read_text()
    assert ": 1 buffer" in bars and "connection" not in bars  # its own word for one, not another's
