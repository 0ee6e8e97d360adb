"""runner.analysis.explain on crafted snapshots: per-task parts, their sums against the measured
figures, the unattributed gap, cgroup v1 against v2, and the runs it must leave out."""

from __future__ import annotations

import pytest

from runner.analysis import explain
from runner.measure.result import RunResult
from runner.results import RunRecord
from tests.support.runs import result

KiB, MiB = 1024, 1 << 20


def snapshot(stack: int, heap: int, anon: int, file: int, cgroup: dict | None, t: float = 1.0) -> dict:
    def part(rss: int, count: int = 1) -> dict:
        return {"rss": rss, "size": rss * 4, "count": count}

    out = {
        "t": t,
        "took_s": 0.01,
        "procs": 1,
        "threads": 1,
        "user": {
            "stack": part(stack),
            "guard": part(0),
            "heap": part(heap),
            "anon": part(anon),
            "file": part(file),
        },
        "pte": 100 * KiB,
    }
    if cgroup is not None:
        out["cgroup"] = cgroup
    return out


def run(n: int, split: dict, peak_rss: int, cgroup_peak: int | None) -> RunRecord:
    r: RunResult = result(peak_rss=peak_rss, cgroup_peak=cgroup_peak, ready_s=0.5, hold_split=split)
    return RunRecord(variant="v", n=n, verdict="valid", sleep_s=3.0, label="here", result=r)


def v2(usage: int, kernel_stack: int, pagetables: int, slab: int, kernel: int) -> dict:
    return {
        "usage": usage,
        "anon": usage - kernel,
        "file": 0,
        "kernel": kernel,
        "kernel_stack": kernel_stack,
        "pagetables": pagetables,
        "slab": slab,
        "sock": 0,
    }


def test_parts_per_task_sum_to_the_measured_figure_and_the_rest_is_unattributed():
    n = 1000
    base = run(
        1,
        snapshot(8 * KiB, 1 * MiB, 100 * KiB, 2 * MiB, v2(4 * MiB, 16 * KiB, 40 * KiB, 50 * KiB, 200 * KiB)),
        peak_rss=3 * MiB + 108 * KiB,
        cgroup_peak=4 * MiB,
    )
    # each task: 8 KiB stack, 2 KiB heap; kernel: 16 KiB stack, 4 KiB page tables, 9 KiB slab
    top = run(
        n,
        snapshot(
            8 * KiB * (n + 1),
            1 * MiB + 2 * KiB * n,
            100 * KiB,
            2 * MiB,
            v2(
                4 * MiB + 39 * KiB * n,
                16 * KiB * (n + 1),
                40 * KiB + 4 * KiB * n,
                50 * KiB + 9 * KiB * n,
                200 * KiB + 29 * KiB * n,
            ),
        ),
        peak_rss=3 * MiB + 108 * KiB + 10 * KiB * n + 512 * n,
        cgroup_peak=4 * MiB + 39 * KiB * n,
    )
    (s,), notes = explain.splits([base, top])
    assert notes == []
    rss = {k: p for k, _, p in s.rss.parts}
    assert rss == {"stack": 8 * KiB, "heap": 2 * KiB, "anon": 0, "file": 0}
    assert s.rss.total == 10 * KiB and s.rss.measured == 10.5 * KiB
    assert s.rss.unattributed == 512 and not s.rss.explained  # 4.8 %: shown, never spread over parts
    cg = {k: p for k, _, p in s.cgroup.parts}
    assert cg == {
        "cg_user": 10 * KiB,
        "kernel_stack": 16 * KiB,
        "pagetables": 4 * KiB,
        "slab": 9 * KiB,
        "kernel_other": 0,
    }
    assert s.cgroup.explained and s.cgroup.unattributed == 0


def test_on_cgroup_v1_kernel_stacks_and_slab_are_one_part_and_page_tables_come_from_vmpte():
    def v1(usage: int, kmem: int) -> dict:
        return {"usage": usage, "anon": usage - kmem, "file": 0, "shmem": 0, "kernel": kmem}

    base_split = snapshot(0, MiB, 0, MiB, v1(2 * MiB, 100 * KiB))
    top_split = snapshot(0, MiB + 100 * KiB, 0, MiB, v1(2 * MiB + 130 * KiB, 130 * KiB))
    top_split["pte"] = 110 * KiB
    (s,), _ = explain.splits(
        [run(1, base_split, 2 * MiB, 2 * MiB), run(10, top_split, 2 * MiB + 100 * KiB, 2 * MiB + 130 * KiB)]
    )
    parts = {k: (t, p) for k, t, p in s.cgroup.parts}
    assert set(parts) == {"cg_user", "pagetables", "kernel_other"}
    assert parts["pagetables"][1] == KiB and parts["kernel_other"] == (explain.V1_KERNEL_OTHER, 2 * KiB)
    assert s.cgroup.total == 13 * KiB and s.cgroup.explained


def test_runs_whose_snapshot_fell_outside_the_hold_or_lack_a_baseline_are_left_out_and_said():
    late = run(100, snapshot(0, MiB, 0, 0, None, t=3.5), MiB, None)  # the sleep (3 s) was over
    found, notes = explain.splits([late])
    assert found == [] and notes == ["v at N=100: 1 snapshot(s) outside the hold, left out"]
    alone = RunRecord(
        variant="w",
        n=50,
        verdict="valid",
        sleep_s=3.0,
        label="here",
        result=result(peak_rss=MiB, ready_s=0.5, hold_split=snapshot(0, MiB, 0, 0, None)),
    )
    found, notes = explain.splits([alone])
    assert found == [] and notes == ["w at N=50: no valid N=1 run with a snapshot to subtract"]


def test_invalid_runs_and_runs_without_a_snapshot_count_for_nothing():
    base = run(1, snapshot(0, MiB, 0, 0, None), MiB, None)
    bad = run(10, snapshot(0, 50 * MiB, 0, 0, None), 50 * MiB, None).replace(verdict="invalid")
    old = RunRecord(
        variant="v", n=10, verdict="valid", sleep_s=3.0, label="here", result=result(peak_rss=MiB)
    )
    found, notes = explain.splits([base, bad, old])
    assert found == [] and notes == []


def test_the_median_of_each_part_over_a_cells_runs():
    base = run(1, snapshot(0, MiB, 0, 0, None), MiB, None)
    tops = [run(10, snapshot(0, MiB + h * KiB, 0, 0, None), MiB + h * KiB, None) for h in (10, 20, 90)]
    (s,), _ = explain.splits([base, *tops])
    assert s.runs == 3 and dict((k, p) for k, _, p in s.rss.parts)["heap"] == pytest.approx(2 * KiB)


def test_records_come_back_from_a_table_of_runs():
    import pandas as pd

    rows = [
        run(1, snapshot(0, MiB, 0, 0, None), MiB, None).to_json(),
        {"variant": "x", "n": 1, "verdict": "failed", "peak_rss": None, "hold_split": None},
    ]
    back = explain.from_rows(pd.DataFrame(rows))
    assert len(back) == 1 and back[0].result.hold_split["user"]["heap"]["rss"] == MiB
