"""runner.results.cost: what N tasks will need, from earlier runs or the manifest's per-task floor."""

from __future__ import annotations

from dataclasses import replace

from runner.limits.host import THREAD_FLOOR_BYTES
from runner.measure import RunResult
from runner.results import RunRecord, cost
from runner.workload import get

CONNECTIONS = get("connections")


def _run(variant: str, n: int, cgroup: int, verdict: str = "valid", kind: str = "sweep") -> RunRecord:
    result = RunResult.from_dict({"peak_rss": cgroup, "cgroup_peak": cgroup, "wall_s": 1.0})
    return RunRecord(variant=variant, n=n, verdict=verdict, kind=kind, result=result)


def test_one_run_predicts_nothing():
    """Dividing M(1) by 1 would call a 30 MB runtime 30 MB per task (and 1M tasks 30 TB)."""
    assert cost.line([_run("go", 1, 30_000_000)], "go") is None
    assert cost.from_records([_run("go", 10_000, 60_000_000)], "go", 1_000_000) is None


def test_two_runs_give_a_line_through_them():
    runs = [_run("go", 1, 2_000_000), _run("go", 10_000, 30_000_000), _run("node", 10_000, 9)]
    fit = cost.line(runs, "go")
    assert fit is not None and fit.slope == (30_000_000 - 2_000_000) / 9_999
    need = cost.from_records(runs, "go", 1_000_000)
    assert need is not None and need.bytes == fit.at(1_000_000)
    assert abs(fit.solve(fit.at(500_000)) - 500_000) <= 1  # int() of bytes rounds down


def test_only_valid_sweep_runs_below_n_count():
    runs = [
        _run("go", 1, 2_000_000),
        _run("go", 10_000, 30_000_000),
        _run("go", 100_000, 1, verdict="failed"),
        _run("go", 50_000, 1, kind="capacity-probe"),
        replace(_run("go", 20_000, 1), superseded=True),
    ]
    assert cost.line(runs, "go").top == 10_000  # type: ignore[union-attr]
    assert cost.from_records(runs, "go", 10_000) is None  # only N=1 lies below 10k


def test_thread_floor_without_runs():
    need = cost.estimate([], "t", {"threads": 1}, 1_000_000)
    assert need is not None and need.bytes == 1_000_000 * THREAD_FLOOR_BYTES
    assert cost.estimate([], "a", {}, 1_000_000) is None


def test_a_workload_is_its_own_line():
    """A thread per connection costs its socket as well as its stack: the connections runs of a
    variant never bend the line of its sleep runs (found when `limits --n` read 41 KiB a thread
    from a connections sweep), and each workload's line comes from its own runs."""
    sleep = [_run("rust-threads", 1, 2_000_000), _run("rust-threads", 10_000, 40_000_000)]
    doubled = [replace(r.result, cgroup_peak=2 * r.result.cgroup_peak) for r in sleep]
    conns = [replace(r, workload="connections", result=d) for r, d in zip(sleep, doubled, strict=True)]
    both = sleep + conns
    assert cost.line(both, "rust-threads") == cost.line(sleep, "rust-threads")
    fit = cost.line(both, "rust-threads", workload=CONNECTIONS)
    assert fit is not None and fit == cost.line(conns, "rust-threads", workload=CONNECTIONS)
    assert cost.line(sleep, "rust-threads", workload=CONNECTIONS) is None
