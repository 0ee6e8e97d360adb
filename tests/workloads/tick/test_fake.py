"""The tick workload end to end against a fake program of known cost (tests/fixtures/tasks/fake,
tick.py): its state's memory, a lateness it adds on purpose, a cost per wake it cannot keep up
with, and two broken proofs, each told by memrun as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner import workload as workloads
from runner.results.selected import load_selected
from runner.workloads.tick.analysis import cells
from runner.workloads.tick.summary import bucket, lowest_us
from tests.support.cli import one_line_error, rows, run

pytestmark = [pytest.mark.serial, pytest.mark.unbuilt]  # memory and lateness of a fake, no task built


def _sweep(
    tmp_path: Path, out: Path, n: int | str, *more: str, env: dict[str, str] | None = None
) -> list[dict]:
    p = run("sweep", "--variant", "fake", "--n", str(n), "--out", str(out), *more, tmp_path=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    return rows(out)


def _tick(tmp_path, out, n, period, state="1KiB", sleep="1.2", env=None) -> dict:
    got = _sweep(
        tmp_path,
        out,
        n,
        "--workload",
        "tick",
        "--period",
        period,
        "--state",
        state,
        "--sleep",
        sleep,
        env=env,
    )
    return [r for r in got if r["workload"] == "tick"][-1]


def test_a_ticking_task_costs_its_state_over_a_sleeping_one(tmp_path):
    """N = 2,000 states of 64 KiB (128 MiB) beside fake.py's sleeping tasks at the same N: the
    difference per task is the state, within 2 % (the fake adds no other cost per task; its
    fixed extra, the histogram and the tick code, is under 2 MiB, 1 KiB a task here)."""
    out = tmp_path / "out"
    _sweep(tmp_path, out, 2000, "--sleep", "1.2")
    row = _tick(tmp_path, out, 2000, "200ms", state="64KiB")
    assert row["verdict"] == "valid", row["reason"]
    selected = load_selected([out], workloads.get("tick"))
    cell = cells(selected.runs)[("fake", 2000)]
    assert cell["over_sleep_bytes"] == pytest.approx(64 * 1024, rel=0.02)
    # its tasks woke while their states were measured: most wakes asked were achieved (not all:
    # CI's busy machine once left 11 of 10,000 past the window's end, which is no memory matter)
    told = row["client"]
    assert told["asked"] == 2000 * told["periods"] > 0 and told["achieved"] > told["asked"] // 2, told


def test_a_known_lateness_lands_in_its_bucket(tmp_path):
    """Each wake 20 ms late on purpose: p50 in that bucket, or a bucket or two above it (the OS
    wakes a sleeper tens of µs late; 2 ms allowed)."""
    row = _tick(tmp_path, tmp_path / "out", 50, "100ms", env={"FAKE_TICK_LATE_US": "20000"})
    assert row["verdict"] == "valid", row["reason"]
    p50 = row["client"]["lateness"]["p50_us"]
    assert lowest_us(bucket(20_000)) <= p50 <= 22_000, p50


def test_a_fake_that_falls_behind_cannot_keep_up_and_says_the_rate_it_held(tmp_path):
    """200 tasks every 100 ms ask 2,000 wakes a second; 0.6 ms of CPU each makes a period take
    120 ms, so the fake falls 20 ms further behind each period and the wakes due late in the
    window come after its end: some achieved, not 99 %."""
    row = _tick(tmp_path, tmp_path / "out", 200, "100ms", sleep="1.5", env={"FAKE_TICK_WAKE_US": "600"})
    assert row["verdict"] == "valid", row["reason"]
    assert row["code"] == "cannot-keep-up", row["reason"]
    told = row["client"]
    assert told["keeps_up"] is False and 0 < told["achieved"] < 0.99 * told["asked"], told
    assert 0 < told["wakes_per_s"] < 0.99 * 2000, told
    # each wake spins 0.6 ms of wall time: its CPU, less what a neighbour took from it, plus the
    # loop's own (the unit is µs: a slip of a thousand shows)
    assert 200 <= told["cpu_per_wake_us"] <= 1000, told
    assert f"held {told['wakes_per_s']:,.0f} wakes/s of the 2,000/s asked" in row["reason"]


@pytest.mark.parametrize(
    ("env", "code"),
    [({"FAKE_TICK_LAZY": "1"}, "state-not-resident"), ({"FAKE_TICK_EARLY_READY": "1"}, "ready-before-wake")],
)
def test_a_broken_proof_is_never_valid(tmp_path, env, code):
    """States written only at each task's first wake after `ready` (over the next half second), or
    `ready` before any first wake: invalid, said why."""
    row = _tick(tmp_path, tmp_path / "out", 2000, "500ms", state="64KiB", env=env)
    assert (row["verdict"], row["code"]) == ("invalid", code), row["reason"]


def test_each_period_is_a_sweep_of_its_own_and_a_mix_is_refused(tmp_path):
    out = tmp_path / "out"
    _sweep(tmp_path, out, "10,20", "--workload", "tick", "--period", "100ms,200ms", "--sleep", "0.6")
    for name, period in (("period-0.1", 0.1), ("period-0.2", 0.2)):
        got = rows(out / name)
        assert [r["params"]["period"] for r in got] == [period, period], got
        assert all(r.get("beside") == [] for r in got), "a ticking run never shares the machine"
    both = tmp_path / "both"
    both.mkdir()
    for name in ("period-0.1", "period-0.2"):
        with (both / "runs.jsonl").open("a") as f:
            f.write((out / name / "runs.jsonl").read_text())
    p = run("report", str(both), "--workload", "tick", tmp_path=tmp_path)
    one_line_error(p)
    assert "several --period values (0.1, 0.2)" in p.stderr
