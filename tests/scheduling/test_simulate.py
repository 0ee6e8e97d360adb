"""The rules on a virtual clock: lanes of runs whose phases are known, started as the rules allow."""

from __future__ import annotations

import itertools

from runner.scheduling import simulate
from runner.scheduling.admit import ENDING, HOLDING, SPAWNING, Flight, Plan
from runner.units import GIB, MIB


def job(lane: int, i: int, spawn: float, sleep: float = 10.0, peak: int = 100 * MIB, exit_s: float = 0.5,
        really: float | None = None, alone: str | None = None) -> simulate.Job:  # fmt: skip
    """A run predicted to spawn in `spawn` s (really: in that many, when the prediction is wrong)."""
    name = f"v{lane}-{i}"
    plan = Plan(name, f"v{lane}", 10 ** (i + 1), spawn, peak, exit_s, sleep, alone=alone)
    ready = spawn if really is None else really
    return simulate.Job((i, lane), plan, simulate.Actual(ready, max(sleep, ready) + exit_s, peak))


LANES = [[job(v, i, spawn=0.2 * (i + 1) * (v + 1)) for i in range(3)] for v in range(5)]


def _within(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return min(a[1], b[1]) > max(a[0], b[0])


def test_runs_overlap_only_while_the_others_hold():
    trace = simulate.run(LANES, jobs=4, budget=16 * GIB)
    assert len(trace.start) == 15
    overlapped = 0
    for run_id in trace.start:
        mine = {p: (a, b) for p, a, b in trace.of(run_id)}
        for _, phase, a, b in trace.beside(run_id):
            overlapped += 1
            if _within((a, b), mine[SPAWNING]):
                assert phase == HOLDING, (run_id, phase, a, b)
            if _within((a, b), mine[ENDING]):
                assert phase != SPAWNING, (run_id, phase, a, b)
    assert overlapped > 0
    assert trace.wall_s < 0.5 * sum(j.actual.wall_s for lane in LANES for j in lane)


def test_jobs_1_is_the_planned_order_one_run_at_a_time():
    trace = simulate.run(LANES, jobs=1, budget=16 * GIB)
    planned = sorted((j for lane in LANES for j in lane), key=lambda j: j.order)
    started = sorted(trace.start, key=trace.start.__getitem__)
    assert started == [j.plan.run_id for j in planned]
    for before, after in itertools.pairwise(started):
        assert trace.start[after] >= trace.end[before]
    assert all(trace.beside(r) == [] for r in started)


def test_a_predicted_peak_past_the_budget_runs_alone():
    big = job(9, 0, spawn=0.5, peak=12 * GIB)
    trace = simulate.run([*LANES, [big]], jobs=4, budget=16 * GIB)
    assert trace.beside(big.plan.run_id) == []  # 1.5 x 12 GiB is past 16 GiB with anything beside
    smaller = job(9, 0, spawn=0.5, peak=6 * GIB)
    assert simulate.run([*LANES, [smaller]], jobs=4, budget=16 * GIB).beside(smaller.plan.run_id)


def test_a_run_that_must_run_alone_does():
    limited = job(9, 1, spawn=3.0, alone="it meets kernel.pid_max here")
    trace = simulate.run([*LANES, [limited]], jobs=4, budget=16 * GIB)
    assert trace.beside(limited.plan.run_id) == []


def test_a_spawn_that_overruns_its_prediction_is_seen_beside_the_wake_it_met():
    first = job(0, 0, spawn=0.1, sleep=5.0)
    wrong = job(1, 0, spawn=0.1, sleep=10.0, really=8.0)  # predicted 0.1 s, took 8
    trace = simulate.run([[first], [wrong]], jobs=2, budget=16 * GIB)
    spawn = next((a, b) for p, a, b in trace.of(wrong.plan.run_id) if p == SPAWNING)
    met = [p for r, p, a, b in trace.beside(wrong.plan.run_id) if _within((a, b), spawn)]
    assert ENDING in met


def _state_at(lanes: list[list[simulate.Job]], trace: simulate.Trace, now: float, budget: int):
    """What a sweep knows at `now` of a replayed one: its runs in flight (phase, fork, wake, what
    they hold) and, by variant, its runs not started; and the memory the flights leave free."""
    flights, pending = [], {}
    for lane in lanes:
        for j in lane:
            start, end = trace.start[j.plan.run_id], trace.end[j.plan.run_id]
            if start > now:
                pending.setdefault(j.plan.variant, []).append(j)
            elif end > now:
                phase = next((p for p, a, b in trace.of(j.plan.run_id) if a <= now < b), ENDING)
                ready = start + (j.actual.ready_s or 0.0)
                usage = j.actual.peak if phase != SPAWNING else 0
                flights.append(Flight(j.plan, phase, start, j.plan.wake_at(start, ready), usage))
    return flights, pending, budget - sum(f.usage for f in flights)


def test_the_eta_taken_mid_sweep_is_what_is_left_when_runs_go_as_predicted():
    lanes = [
        [job(v, i, spawn=0.3 * (i + 1) * (v + 1), peak=(i + 1) * GIB) for i in range(3)] for v in range(5)
    ]
    budget = 9 * GIB  # tight: the larger runs wait for memory, so counting a flight twice shows
    trace = simulate.run(lanes, jobs=4, budget=budget)
    moments = sorted({a + 0.01 for _, _, a, _ in trace.phases})[1:-1]
    checked = 0
    for now in moments:
        flights, pending, free = _state_at(lanes, trace, now, budget)
        if not flights or not pending:
            continue
        left = simulate.left_s(flights, pending, now, 4, free)
        assert abs(now + left - trace.wall_s) < 0.05, (now, left, trace.wall_s)
        checked += 1
    assert checked >= 5
