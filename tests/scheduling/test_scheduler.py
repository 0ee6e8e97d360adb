"""The scheduler with lanes in threads and fake runs on a fake clock: what starts when, what each
run records beside it, and how a stop reaches every lane (no process is started)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from runner.measure import Sample
from runner.measure.hooks import INTERRUPTED
from runner.scheduling import warm
from runner.scheduling.admit import Plan
from runner.scheduling.scheduler import MEMORY_GUARD, Lane, Scheduler
from runner.units import GIB, MIB

WAIT = 10.0  # seconds a test waits for another thread before it calls the scheduler stuck


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def fake_run(t_fork: float, ready_at: float | None = None, t_exit: float | None = None) -> SimpleNamespace:
    """What a FlightWatcher reads of a runner.measure.Run; with ready_at, a second of idle hold
    sampled (no CPU used), so that its hold counts as measured idle."""
    ready_s = None if ready_at is None else ready_at - t_fork
    idle = [] if ready_s is None else [Sample(ready_s + t, 0, 1, 1, None, 0.0, 0.0) for t in (0.0, 1.0)]
    return SimpleNamespace(
        t_fork=t_fork,
        ready_s=ready_s,
        output=SimpleNamespace(ready_at=ready_at),
        timeline=idle,
        report=SimpleNamespace(t_exit=t_exit),
    )


def hold(w, t_fork: float, ready_at: float) -> None:  # type: ignore[no-untyped-def]
    """`ready N`, then one step that samples a second of idle hold."""
    w.held(fake_run(t_fork, ready_at))
    assert w.stepped(fake_run(t_fork, ready_at)) is None


def plan(name: str, peak: int = 100 * MIB, **more) -> Plan:  # type: ignore[no-untyped-def]
    return Plan(name, name, 1000, 0.5, peak, 0.5, 10.0, **more)


def lifetime(
    clock: Clock, t0: float, wait_for: threading.Event | None = None, started: threading.Event | None = None
):  # type: ignore[no-untyped-def]
    """A body: forks at t0, ready 0.5 s later, holds until `wait_for` (if any), wakes at t0 + 10."""

    def body(watchers):  # type: ignore[no-untyped-def]
        (w,) = watchers
        if started:
            started.set()
        w.launched(fake_run(t0))
        hold(w, t0, t0 + 0.5)
        if wait_for is not None:
            assert wait_for.wait(WAIT), "the other run never started"
        clock.now = max(clock.now, t0 + 10.0)
        assert w.stepped(fake_run(t0)) is None
        w.finished(fake_run(t0, t0 + 0.5, t0 + 10.5))
        return "ran"

    return body


def test_a_second_lane_starts_while_the_first_holds_and_each_records_the_other():
    clock = Clock()
    s = Scheduler(2, clock=clock, free_memory=lambda: 16 * GIB)
    b_started, a_done = threading.Event(), threading.Event()
    ran = {}

    def lane_a(lane: Lane) -> None:
        ran["a"] = lane.run((0,), plan("a"), lifetime(clock, 0.0, wait_for=b_started))
        a_done.set()

    def lane_b(lane: Lane) -> None:
        ran["b"] = lane.run((1,), plan("b"), lifetime(clock, 0.6, wait_for=a_done, started=b_started))

    s.run_lanes([lane_a, lane_b])
    a, b = ran["a"], ran["b"]
    assert a.value == b.value == "ran"
    assert {(e["run_id"], e["phase"]) for e in a.beside} == {("b", "spawn"), ("b", "hold")}
    assert {(e["run_id"], e["phase"]) for e in b.beside} == {("a", "hold"), ("a", "end")}
    spawn_b = next(e for e in a.beside if e["phase"] == "spawn")
    assert (spawn_b["from_s"], spawn_b["to_s"]) == (0.6, 1.1)  # seconds since a's fork


def test_a_plans_memory_is_touched_in_its_lane_before_its_body_and_recorded():
    clock = Clock()
    touched: list[tuple[int, bool]] = []
    body_ran = threading.Event()

    def touch(size: int) -> warm.Warmed:
        touched.append((size, body_ran.is_set()))
        return warm.Warmed(size, 0.25)

    s = Scheduler(2, clock=clock, free_memory=lambda: 16 * GIB, touch=touch)
    ran = {}

    def body(watchers):  # type: ignore[no-untyped-def]
        body_ran.set()
        return lifetime(clock, 0.0)(watchers)

    def lane(lane: Lane) -> None:
        ran["a"] = lane.run((0,), plan("a", warm=1 * GIB), body)
        ran["b"] = lane.run((1,), plan("b", warm=0), lifetime(clock, 20.0))

    s.run_lanes([lane])
    assert touched == [(1 * GIB, False)]  # before the body; b predicted nothing to touch
    assert ran["a"].warmed == warm.Warmed(1 * GIB, 0.25) and ran["b"].warmed is None


def test_with_too_little_memory_the_second_waits_until_the_first_is_over():
    clock = Clock()
    s = Scheduler(2, clock=clock, free_memory=lambda: 1 * GIB)
    order: list[str] = []
    ran = {}

    def lane(name: str, t0: float, i: int):  # type: ignore[no-untyped-def]
        def body(lane: Lane) -> None:
            run = lifetime(clock, t0)

            def recorded(watchers):  # type: ignore[no-untyped-def]
                order.append(name)
                return run(watchers)

            ran[name] = lane.run((i,), plan(name, peak=2 * GIB), recorded)

        return body

    s.run_lanes([lane("a", 0.0, 0), lane("b", 20.0, 1)])
    assert order == ["a", "b"] and ran["a"].beside == [] and ran["b"].beside == []


def test_a_stop_stops_the_runs_in_flight_and_ends_the_waiting_lanes():
    clock = Clock()
    s = Scheduler(2, clock=clock, free_memory=lambda: 16 * GIB)
    said: list[object] = []
    waited: list[str] = []

    def lane_a(lane: Lane) -> None:
        def body(watchers):  # type: ignore[no-untyped-def]
            (w,) = watchers
            w.launched(fake_run(0.0))
            hold(w, 0.0, 0.5)
            s.cancel()  # as Ctrl-C does, from the main thread
            said.append(w.stepped(fake_run(0.0)))
            w.finished(fake_run(0.0, 0.5, 1.0))

        lane.run((0,), plan("a"), body)

    def lane_b(lane: Lane) -> None:
        lane.run((1,), plan("b", alone="it meets kernel.pid_max here"), lambda w: waited.append("b"))

    s.run_lanes([lane_a, lane_b])
    assert said == [(INTERRUPTED, "the sweep was stopped")] and waited == []


def test_a_lanes_error_ends_the_others_and_is_raised():
    clock = Clock()
    s = Scheduler(2, clock=clock, free_memory=lambda: 16 * GIB)

    def broken(lane: Lane) -> None:
        raise OSError(28, "No space left on device")

    def waiting(lane: Lane) -> None:
        lane.run((1,), plan("b", alone="alone"), lambda w: None)
        lane.run((2,), plan("c", alone="alone"), lambda w: None)

    with pytest.raises(OSError, match="No space"):
        s.run_lanes([broken, waiting])


def test_when_free_memory_runs_out_beside_others_the_youngest_run_is_stopped():
    clock = Clock()
    free = [16 * GIB]
    s = Scheduler(2, clock=clock, free_memory=lambda: free[0])
    b_held, said = threading.Event(), {}

    def lane_a(lane: Lane) -> None:
        def body(watchers):  # type: ignore[no-untyped-def]
            (w,) = watchers
            w.launched(fake_run(0.0))
            hold(w, 0.0, 0.5)
            assert b_held.wait(WAIT)
            free[0] = -1  # a prediction far too low: the machine is below its reserve
            clock.now = 1.5
            said["a"] = w.stepped(fake_run(0.0))
            w.finished(fake_run(0.0, 0.5, 2.0))

        lane.run((0,), plan("a"), body)

    def lane_b(lane: Lane) -> None:
        def body(watchers):  # type: ignore[no-untyped-def]
            (w,) = watchers
            w.launched(fake_run(0.6))
            hold(w, 0.6, 0.9)
            b_held.set()
            while "a" not in said:  # until a's step has checked the memory
                threading.Event().wait(0.01)
            said["b"] = w.stepped(fake_run(0.6))
            w.finished(fake_run(0.6, 0.9, 2.0))

        lane.run((1,), plan("b"), body)

    s.run_lanes([lane_a, lane_b])
    assert said["a"] is None
    assert said["b"] is not None and said["b"][0] == MEMORY_GUARD


def test_hold_cpu_is_the_trees_cpu_over_the_holds_last_second():
    """From the samples' CPU seconds: only the hold's (after ready), only its last second, and
    unknown before HOLD_CPU_WINDOW_S of it was sampled."""
    from runner.measure import Sample
    from runner.scheduling.scheduler import hold_cpu

    def at(t: float, cpu: float) -> Sample:
        return Sample(t, 0, 1, 1, None, user_s=cpu, sys_s=0.0)

    spawn = [at(i / 10, i / 10) for i in range(21)]  # 2 s spawning at a whole core
    assert hold_cpu(spawn, None) is None
    hold = [at(2.0 + i / 10, 2.0 + 0.02 * i) for i in range(1, 31)]  # then 3 s at 0.2 of a core
    assert hold_cpu(spawn + hold[:3], 2.0) is None  # 0.3 s of hold: not known yet
    assert abs((hold_cpu(spawn + hold, 2.0) or 0.0) - 0.2) < 1e-9
