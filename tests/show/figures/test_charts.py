"""plot.plot_results(): figures from synthetic stored runs (no task is run).

The SVGs keep their text as text (svg.fonttype none), so the tests read labels straight from them.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from runner.show.figures import charts as plot
from tests.support.article import LATE, MAP_COUNT, SWEEPS, article_runs, run
from tests.support.figures import svg_text

# A subset keeps the tests fast and still has every awkward case: failed (rust-threads 100k, 1M),
# invalid with a number that must not show (java-threads 100k), repeats beyond 5% (rust-tokio 1M),
# repeats within 5% (go 100k) and a cell re-run with a longer sleep (elixir 1M).
VARIANTS = ("rust-threads", "rust-tokio", "go", "java-threads", "elixir")
NS = (1, 10_000, 100_000, 1_000_000)
ZERO_MB = re.compile(r"(?<![\d,.])0\.0 MB")


@pytest.fixture(scope="module")
def runs():
    table = article_runs()
    return table[table.variant.isin(VARIANTS)].reset_index(drop=True)


@pytest.fixture(scope="module")
def figures(runs, tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("plots")
    paths = plot.plot_results(runs, SWEEPS, out)
    return {p.name: p for p in paths}


def test_every_figure_in_both_formats(figures):
    stems = [f"bars-n{n}-peak_rss" for n in NS] + ["loglog-peak_rss", "per-task-peak_rss"]
    assert sorted(figures) == sorted(f"{s}.{fmt}" for s in stems for fmt in ("png", "svg"))
    for name, path in figures.items():
        data = path.read_bytes()
        if name.endswith(".png"):
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
            width, height = struct.unpack(">II", data[16:24])
            assert width >= 1200 and height >= 400  # big enough to read 10 variant names
        else:
            assert b"<svg" in data[:500] and len(data) > 5000


def test_bars_write_values_reasons_and_never_zero(figures):
    text = svg_text(figures["bars-n100000-peak_rss.svg"])
    assert "270.0 MB" in text and "23.7 MB" in text and "445.0 MB" in text
    assert f"failed: {MAP_COUNT}" in text
    assert "invalid: spawn outlasted sleep: ready after" in text and LATE not in text  # reason shortened
    assert not ZERO_MB.search(text) and "300.0 MB" not in text  # the invalid run's own number
    assert "MB (1 MB = 1,000,000 bytes)" in text


def test_bars_title_names_metric_machine_and_date(figures):
    text = svg_text(figures["bars-n1000000-peak_rss.svg"])
    assert "Peak RSS of the process tree: 1M concurrent tasks" in text
    assert "bench1" in text and "Intel Xeon E3-1505M v5" in text and "8 CPUs" in text
    assert "32 GB RAM" in text and "2024-05-01" in text


def test_bars_flag_spread_and_longer_sleep(figures):
    text = svg_text(figures["bars-n1000000-peak_rss.svg"])
    assert "213.6 MB  ± 200.0–231.0 (spread 15%)" in text
    assert "4,009.0 MB  †sleep 40 s" in text and "other cells slept 10 s" in text
    assert "±" not in svg_text(figures["bars-n100000-peak_rss.svg"])  # go's repeats agree within 5%


def test_bars_sorted_smallest_first_with_stubs_last(runs):
    ctx = plot.context(runs, SWEEPS, "peak_rss")
    with plt.rc_context(plot.STYLE):
        fig = plot._bar_chart(ctx, 100_000)
    ax = fig.axes[0]
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert names == ["rust-tokio", "go", "elixir", "java-threads", "rust-threads"]
    widths = {names[round(b.get_y() + b.get_height() / 2)]: b for b in ax.patches}
    assert widths["go"].get_width() == pytest.approx(270.0)
    stub = widths["java-threads"]
    assert stub.get_hatch() == "///" and 0 < stub.get_width() < 0.05 * 445  # neither 0 nor 300 MB
    assert ax.get_xlim()[1] > 445  # the largest bar's label fits
    plt.close(fig)


def test_loglog_plots_valid_cells_only(runs, figures):
    ctx = plot.context(runs, SWEEPS, "peak_rss")
    with plt.rc_context(plot.STYLE):
        fig = plot._loglog_chart(ctx)
    lines = {c.get_label(): c.lines[0] for c in fig.axes[0].containers}
    assert list(lines["java-threads"].get_xdata()) == [1, 10_000]
    assert list(lines["rust-tokio"].get_ydata()) == pytest.approx([3.0, 4.6, 23.7, 213.6])
    assert fig.axes[0].get_xscale() == "log" and fig.axes[0].get_yscale() == "log"
    plt.close(fig)
    text = svg_text(figures["loglog-peak_rss.svg"])
    assert "Not plotted: invalid: java-threads 100k. failed: java-threads 1M; rust-threads 100k, 1M." in text
    assert "1M" in text and "10k" in text and "bench1" in text


def test_per_task_in_kib_with_missing_cells_named(figures):
    text = svg_text(figures["per-task-peak_rss.svg"])
    assert "0.21" in text  # rust-tokio: (213.6 - 3.0) MB / 1M = 210.6 B
    assert "2.62" in text  # go at 100k: (270 - 1.8) MB / 100k
    assert "n/a: failed" in text and "n/a: invalid" in text
    assert "KiB per task (1 KiB = 1024 bytes)" in text
    assert "3.86 †" in text  # elixir 1M slept 40 s


def test_other_metric_only_n1_and_missing_metric(runs, tmp_path):
    only_one = plot.plot_results(
        runs[runs.n == 1], [], tmp_path / "a", metric="cgroup_peak", formats=("svg",)
    )
    assert [p.name for p in only_one] == ["bars-n1-cgroup_peak.svg", "loglog-cgroup_peak.svg"]
    text = svg_text(only_one[0])
    assert "Peak of the run's memory cgroup" in text and "machine unknown · 2024-05-01" in text
    none = runs[runs.n == 10_000].assign(cgroup_peak=None)
    paths = plot.plot_results(none, [], tmp_path / "b", metric="cgroup_peak", formats=("svg",))
    text = svg_text(paths[0])
    assert "no cgroup_peak recorded" in text and not ZERO_MB.search(text)


def test_unknown_metric_or_no_runs_is_an_error(runs, tmp_path):
    with pytest.raises(ValueError, match="metric"):
        plot.plot_results(runs, [], tmp_path, metric="vsz")
    with pytest.raises(ValueError, match="no runs"):
        plot.plot_results(runs.iloc[0:0], [], tmp_path)


def test_a_single_failed_cell_alone(tmp_path):
    import pandas as pd

    failed = pd.DataFrame([run("rust-threads", 100_000, "failed", reason=MAP_COUNT)])
    (path,) = [p for p in plot.plot_results(failed, [], tmp_path, formats=("svg",)) if "bars" in p.name]
    text = svg_text(path)
    assert f"failed: {MAP_COUNT}" in text and "MB" not in text.replace("MB (1 MB", "")


def test_capacity_probes_on_another_kernel_build_do_not_break_the_figures(tmp_path):
    """A machine booted on a new kernel build between a sweep and a capacity search: the probes'
    build is a label with no sweep cell to draw, and `memrun plot` draws the sweep's figures
    (as one label) and the capacity figure, where it once stopped on `min() arg is an empty
    sequence`."""
    import json

    from runner.results import RunRecord
    from runner.results.capacity import CapacityResult
    from tests.support.cli import run as memrun_run
    from tests.support.crafted import write_results

    out = write_results(tmp_path / "res", "box", {("go", 1): [2.0], ("go", 10_000): [30.0]})
    start = {"sweep_id": "cap-1", "event": "start", "kind": "capacity", "host": "box", "kernel": "6.1.1"}
    with (out / "sweeps.jsonl").open("a") as f:
        f.write(json.dumps(start) + "\n")
    probe = RunRecord(
        "go", 90_000, "valid", code="ok", sweep_id="cap-1", kind="capacity-probe", memory_cap=256 << 20
    )
    with (out / "runs.jsonl").open("a") as f:
        f.write(json.dumps(probe.to_json()) + "\n")
    answer = CapacityResult("go", 256 << 20, 90_000, 91_800, capacity_id="cap-1", stopped_by="out-of-memory")
    (out / "capacity.jsonl").write_text(json.dumps(answer.to_json()) + "\n")
    p = memrun_run("plot", str(out), "--out", str(tmp_path / "figs"), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    names = sorted(f.name for f in (tmp_path / "figs").iterdir())
    assert "loglog-peak_rss.png" in names and "capacity-256MiB.png" in names, names
    assert not [n for n in names if "kernel" in n], names
