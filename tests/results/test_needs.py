"""What it would take: the memory N threads need, from measured per-task costs or the floor."""

from __future__ import annotations

import re

from click.testing import CliRunner

from runner.cli import main
from runner.results import RunRecord
from runner.results.needs import thread_need
from tests.support.here import HERE, RUST
from tests.support.runs import result

KIB = 1024


def _valid(n: int, cgroup: int) -> RunRecord:
    return RunRecord(variant="rust-threads", n=n, verdict="valid", result=result(cgroup_peak=cgroup))


def test_a_million_rust_threads_need_more_than_this_machine():
    # 10k Rust threads: 375 MB in their cgroup, 2 MB at N=1 -> 36.4 KiB per thread
    records = [_valid(1, 2_000_000), _valid(10_000, 375_000_000)]
    text = thread_need(records, "rust-threads", RUST, 1_000_000, HERE)
    assert text == (
        "1,000,000 tasks need ≈ 34.7 GiB in their cgroup (36.4 KiB per task from N=1 to N=10,000, "
        "cgroup_peak), more than this machine's 23.5 GiB"
    )
    text = thread_need(records, "rust-threads", RUST, 100_000, HERE)
    assert text is not None and text.endswith("this machine has 23.5 GiB, so memory would hold them")


def test_without_stored_runs_the_kernel_floor_is_used_and_async_variants_need_nothing_here():
    text = thread_need([], "rust-threads", RUST, 1_000_000, HERE)
    assert text is not None and "at least 36 KiB of kernel memory per OS thread" in text
    assert thread_need([], "go", {}, 1_000_000, HERE) is None


def test_limits_n_prints_the_memory_prediction_per_thread_variant(tmp_path):
    r = CliRunner().invoke(main, ["limits", "--n", "1e6", "rust-threads", "go"])
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if x.strip().startswith("memory: 1,000,000 tasks need"))
    # the per-thread cost measured in plots/data: 36.5-36.6 KiB in both reference sweeps
    assert re.search(r"in their cgroup \(36\.\d KiB per task from N=1 to N=10,000, cgroup_peak\)", line), line
    assert "Memory from the runs stored in plots/data" in r.output
    r = CliRunner().invoke(
        main, ["limits", "--n", "1e6", "--results", str(tmp_path / "none"), "rust-threads"]
    )
    assert r.exit_code == 2 and "--results" in r.output
