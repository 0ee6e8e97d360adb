"""`memrun plot` on a copy of the committed reference results: figures back, no task started."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from runner.measure import measure
from runner.results.summary import load_runs

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "tests" / "fixtures" / "reference-10"  # the first reference sweep, frozen


@pytest.mark.serial
@pytest.mark.unbuilt
def test_plot_rebuilds_the_figures_from_stored_results_without_running_anything(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(REFERENCE, data)
    out = tmp_path / "figures"
    # No toolchain, task folder or build is reachable: starting any task program would fail.
    env = {
        "PATH": "/nonexistent",
        "MEMRUN_TASKS": str(tmp_path / "no-tasks"),
        "MEMRUN_BUILD": str(tmp_path / "no-build"),
        "HOME": str(tmp_path),
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": str(tmp_path / "mpl"),
    }
    # Matplotlib's first start in a fresh config dir forks `fc-list` to build its font cache: a
    # second process that is not a task program. Build the cache first, outside the measurement.
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=env, check=True, timeout=120)
    r = measure(
        [sys.executable, "-m", "runner", "plot", str(data), "--out", str(out)],
        env=env,
        cwd=ROOT,
        interval=0.01,
        timeout=120,
    )
    assert r.exit_code == 0, r.stderr_tail
    # memrun measured memrun: the plot command's process tree never held a second process
    assert r.procs_max == 1
    ns = sorted(load_runs([data])["n"].unique())
    expected = {f"bars-n{n}-peak_rss.{ext}" for n in ns for ext in ("png", "svg")}
    expected |= {f"{kind}-peak_rss.{ext}" for kind in ("loglog", "per-task") for ext in ("png", "svg")}
    written = {p.name for p in out.iterdir()}
    assert expected <= written
    assert all((out / name).stat().st_size > 1000 for name in expected)
    # the copy is read, never written
    for f in REFERENCE.iterdir():
        assert (data / f.name).read_bytes() == f.read_bytes()
    assert not (tmp_path / "no-build").exists() and not os.path.exists(tmp_path / "no-tasks")
