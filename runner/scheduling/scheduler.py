"""Several runs in flight at once, each started when the rules of runner.scheduling.admit allow it,
each recording what ran beside it.

Why a thread per lane, not one loop that steps every run: the campaigns are sequential code. A
capacity search picks its next N from its last probe; a sweep cell runs again with a longer sleep
when its first run says so; a variant's larger N is predicted from its smaller ones. Each such
sequence (a *lane*: a variant's cells, one search) runs as it always did, in a thread of its own,
and asks the scheduler before each run as it would call a function (Lane.run). Its run is stepped
in that thread (runner.measure.Run): sampling reads /proc and sleeps, which release the GIL, so
runs in flight do not hold each other up. The scheduler is a monitor (one lock, one condition) and
decides only when every lane is waiting for a start or has its run in flight, never while a lane is
still working out its next run: its decisions, and `--jobs 1`'s strict order, do not depend on
how the threads happen to be scheduled. The main thread only waits, re-decides every TICK_S (free
memory changes with the rest of the machine) and takes Ctrl-C or SIGTERM: then every run in flight
is stopped as Ctrl-C stops one (runner.measure.Cancelled: killed, not stored) and every lane ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from runner.measure import Cancelled, Run, Sample, Watcher
from runner.measure.hooks import INTERRUPTED
from runner.scheduling import memory, warm
from runner.scheduling.admit import ENDING, HOLD_CPU_WINDOW_S, HOLDING, SPAWNING, Flight, Plan, busy, choose

T = TypeVar("T")
TICK_S = 0.5
# The host's last net: runs started side by side on predictions that proved far too low. When the
# memory the machine has free (MemAvailable less the cap's reserve) falls below nothing while
# several runs are in flight, the youngest is stopped (stopped_by = MEMORY_GUARD, not stored as a
# figure) and its campaign runs it again alone; checked every GUARD_EVERY_S.
MEMORY_GUARD = "memory-guard"
GUARD_EVERY_S = 0.5
WORKING, WAITING, FLYING, DONE = "working", "waiting", "flying", "done"


@dataclass
class Span:
    """One phase of one run, on the monotonic clock (end None: still in it)."""

    run_id: str
    variant: str
    n: int
    phase: str
    start: float
    end: float | None = None


@dataclass
class Ran(Generic[T]):
    """What a lane's run returned, what ran beside it and how long it waited for its start."""

    value: T
    beside: list[dict[str, Any]] = field(default_factory=list)
    waited_s: float = 0.0
    warmed: warm.Warmed | None = None  # what was touched before its fork (None: nothing)


class Scheduler:
    """Admits runs of several lanes by the rules of admit.choose, at most `jobs` in flight."""

    def __init__(
        self,
        jobs: int,
        *,
        free_memory: Callable[[], int | None] = memory.free_memory,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[Scheduler], None] | None = None,
        touch: Callable[[int], warm.Warmed] = warm.warm,
    ) -> None:
        self.jobs, self.free_memory, self.clock, self.on_change = jobs, free_memory, clock, on_change
        self.touch = touch  # what touches a spawn's memory before its fork (runner.scheduling.warm)
        self.cv = threading.Condition()
        self.flights: dict[str, Flight] = {}
        self.waiting: dict[str, tuple[Any, Plan]] = {}
        self.why: dict[str, str] = {}  # run_id -> why it waits, as of the last decision
        self.spans: list[Span] = []
        self.lanes: dict[int, str] = {}  # lane id -> WORKING, WAITING, FLYING or DONE
        self.cancelled = False
        self.errors: list[BaseException] = []
        self.guarded_at = float("-inf")
        self.stopping: set[str] = set()  # run ids the memory guard stops

    # --- the lanes --------------------------------------------------------------------------------

    def run_lanes(self, bodies: Sequence[Callable[[Lane], None]]) -> None:
        """Run every lane to its end. Ctrl-C (or SIGTERM as KeyboardInterrupt) stops every run in
        flight and every lane, then is raised again; a lane's error stops the others, then is raised."""
        threads = [threading.Thread(target=self._lane, args=lane, daemon=True) for lane in enumerate(bodies)]
        with self.cv:
            self.lanes = dict.fromkeys(range(len(threads)), WORKING)
        for t in threads:
            t.start()
        try:
            while any(t.is_alive() for t in threads):
                with self.cv:
                    self._decide()
                    self.cv.wait(TICK_S)
        except KeyboardInterrupt:
            self.cancel()
            self._join(threads)
            raise
        if self.errors:
            raise self.errors[0]

    def _join(self, threads: list[threading.Thread]) -> None:
        """Wait for every lane to end (its run killed within a sampling interval), whatever
        further Ctrl-C comes: a lane left running would leave its run behind."""
        while any(t.is_alive() for t in threads):
            try:
                for t in threads:
                    t.join()
            except KeyboardInterrupt:
                continue

    def _lane(self, lane_id: int, body: Callable[[Lane], None]) -> None:
        try:
            body(Lane(self, lane_id))
        except Cancelled:
            pass
        except BaseException as e:  # a lane's failure (a full disk) ends the sweep, as it would alone
            with self.cv:
                self.errors.append(e)
            self.cancel()
        finally:
            with self.cv:
                self.lanes[lane_id] = DONE
                self._decide()
                self.cv.notify_all()

    def cancel(self) -> None:
        with self.cv:
            self.cancelled = True
            self.cv.notify_all()

    # --- decisions --------------------------------------------------------------------------------

    def _decide(self) -> None:
        """Start the next run if the rules allow it; only while no lane is working out its next
        run (under the lock)."""
        if self.cancelled or WORKING in self.lanes.values():
            return
        waiting = [plan for _, plan in sorted(self.waiting.values(), key=lambda w: w[0])]
        if waiting:
            free = self.free_memory() if self.flights else None
            chosen, self.why = choose(waiting, self.clock(), list(self.flights.values()), self.jobs, free)
            if chosen is not None:
                del self.waiting[chosen.run_id]
                self.flights[chosen.run_id] = Flight(chosen, cpu=None)
                self.cv.notify_all()
        if self.on_change:
            self.on_change(self)

    def start(self, lane_id: int, order: Any, plan: Plan) -> float:
        """Wait (in the lane's thread) until the plan may start; the seconds it waited. Raises
        Cancelled once the sweep is stopped."""
        t0 = self.clock()
        with self.cv:
            self.waiting[plan.run_id] = (order, plan)
            self.lanes[lane_id] = WAITING
            self._decide()
            while plan.run_id not in self.flights:
                if self.cancelled:
                    self.waiting.pop(plan.run_id, None)
                    self.lanes[lane_id] = WORKING
                    raise Cancelled("the sweep was stopped")
                self.cv.wait()
            self.lanes[lane_id] = FLYING
        return self.clock() - t0

    def flew(self, lane_id: int, run_id: str) -> None:
        """The lane's run is over (or never started): its lane works out its next one."""
        with self.cv:
            self.lanes[lane_id] = WORKING
            if run_id in self.flights:
                self._end(run_id, self.clock())

    def warm_for(self, plan: Plan) -> warm.Warmed | None:
        """Touch the memory the admitted plan is predicted to take, in its lane's thread before its
        fork (it counts as spawning: nothing starts beside it meanwhile); None when too little."""
        if plan.instant:
            return None
        size = warm.size_for(plan.warm, self.free_memory())
        return self.touch(size) if size else None

    # --- phases, from the runs' own threads (FlightWatcher) -------------------------------------

    def _phase(self, run_id: str, phase: str, at: float) -> None:
        f = self.flights[run_id]
        for s in self.spans:
            if s.run_id == run_id and s.end is None:
                s.end = at
        f.phase = phase
        self.spans.append(Span(run_id, f.plan.variant, f.plan.n, phase, at))
        self._decide()
        self.cv.notify_all()

    def forked(self, run_id: str, t_fork: float) -> None:
        with self.cv:
            f = self.flights[run_id]
            f.t_fork, f.wake_at = t_fork, f.plan.wake_at(t_fork, None)
            self._phase(run_id, SPAWNING, t_fork)

    def held(self, run_id: str, t_ready: float) -> None:
        with self.cv:
            f = self.flights[run_id]
            f.wake_at = f.plan.wake_at(t_ready if f.t_fork is None else f.t_fork, t_ready)
            late = f.wake_at is not None and self.clock() >= f.wake_at
            self._phase(run_id, ENDING if late else HOLDING, t_ready)

    def stepped(self, run_id: str, usage: int | None, cpu: float | None = None) -> tuple[str, str] | None:
        """After each sample: what the run holds now and the CPU its hold uses, its wake when it
        comes, and whether the sweep was stopped (then the run is, as Ctrl-C stops it)."""
        with self.cv:
            if self.cancelled:
                return INTERRUPTED, "the sweep was stopped"
            f = self.flights[run_id]
            f.usage = usage or f.usage
            if cpu is not None and f.phase == HOLDING:
                before = busy(list(self.flights.values()))
                f.cpu = cpu
                if self.waiting and busy(list(self.flights.values())) != before:
                    self._decide()
            now = self.clock()
            if f.phase == HOLDING and f.wake_at is not None and now >= f.wake_at:
                self._phase(run_id, ENDING, f.wake_at)
            self._guard(now)
            if run_id in self.stopping:
                return MEMORY_GUARD, (
                    "stopped by the scheduler: the machine's free memory fell below the reserve "
                    "with runs side by side; it runs again alone"
                )
        return None

    def _guard(self, now: float) -> None:
        """With several runs in flight and the machine's free memory below nothing, stop the
        youngest (under the lock)."""
        if len(self.flights) < 2 or now - self.guarded_at < GUARD_EVERY_S:
            return
        self.guarded_at = now
        free = self.free_memory()
        if free is None or free >= 0:
            return
        forked = [
            f for f in self.flights.values() if f.t_fork is not None and f.plan.run_id not in self.stopping
        ]
        if len(forked) >= 2:
            self.stopping.add(max(forked, key=lambda f: f.t_fork or 0.0).plan.run_id)

    def _end(self, run_id: str, at: float) -> None:
        for s in self.spans:
            if s.run_id == run_id and s.end is None:
                s.end = at
        del self.flights[run_id]
        self._decide()
        self.cv.notify_all()

    def ended(self, lane_id: int, run_id: str, t_exit: float) -> None:
        """The run is over: its lane works out what comes next (a run again with a longer sleep
        goes before the next in the planned order), so nothing is decided until it asks."""
        with self.cv:
            self.lanes[lane_id] = WORKING
            if run_id in self.flights:
                self._end(run_id, t_exit)

    # --- what ran beside a run ------------------------------------------------------------------

    def beside(self, run_id: str) -> list[dict[str, Any]]:
        """Every phase of every other run that overlapped this run's life, in seconds since its
        fork: {run_id, variant, n, phase, from_s, to_s}. Empty for a run that ran alone."""
        with self.cv:
            mine = [s for s in self.spans if s.run_id == run_id]
            if not mine:
                return []
            t0, now = mine[0].start, self.clock()
            t1 = max(s.end if s.end is not None else now for s in mine)
            out = []
            for s in self.spans:
                lo, hi = max(s.start, t0), min(s.end if s.end is not None else now, t1)
                if s.run_id != run_id and hi > lo:
                    out.append(
                        {"run_id": s.run_id, "variant": s.variant, "n": s.n, "phase": s.phase}
                        | {"from_s": round(lo - t0, 3), "to_s": round(hi - t0, 3)}
                    )
            return out


def hold_cpu(timeline: Sequence[Sample], ready_s: float | None) -> float | None:
    """Cores the run's tree used over the last second of its hold (its samples' CPU seconds), or
    None before HOLD_CPU_WINDOW_S of the hold was sampled."""
    if ready_s is None or not timeline or timeline[-1].user_s is None:
        return None
    last, first = timeline[-1], None
    for p in reversed(timeline):  # back to the second before the last sample, not before ready
        if p.t < max(ready_s, last.t - 1.0):
            break
        if p.user_s is not None:
            first = p
    if first is None or last.t - first.t < HOLD_CPU_WINDOW_S:
        return None
    used = (last.user_s or 0.0) + (last.sys_s or 0.0) - (first.user_s or 0.0) - (first.sys_s or 0.0)
    return max(0.0, used / (last.t - first.t))


def _or_now(t: float | None, s: Scheduler) -> float:
    return s.clock() if t is None else t


class FlightWatcher(Watcher):
    """A Run's phases told to the scheduler: forked (spawning), `ready` (holding), each sample
    (what it holds, its wake, a stop), finished."""

    def __init__(self, scheduler: Scheduler, lane_id: int, run_id: str) -> None:
        self.s, self.lane_id, self.run_id = scheduler, lane_id, run_id

    def launched(self, run: Run) -> None:
        self.s.forked(self.run_id, _or_now(run.t_fork, self.s))

    def held(self, run: Run) -> None:
        self.s.held(self.run_id, _or_now(run.output.ready_at, self.s))

    def stepped(self, run: Run) -> tuple[str, str] | None:
        last = run.timeline[-1] if run.timeline else None
        usage = None if last is None else (last.cgroup if last.cgroup is not None else last.rss)
        return self.s.stepped(self.run_id, usage, hold_cpu(run.timeline, run.ready_s))

    def finished(self, run: Run) -> None:
        self.s.ended(self.lane_id, self.run_id, _or_now(run.report.t_exit, self.s))


class Lane:
    """One sequence of runs (a variant's cells, a capacity search), in its own thread."""

    def __init__(self, scheduler: Scheduler, lane_id: int) -> None:
        self.s, self.id = scheduler, lane_id

    def run(self, order: Any, plan: Plan, body: Callable[[list[Watcher]], T]) -> Ran[T]:
        """Wait for the plan's turn, then body(watchers) (which measures the run with these
        watchers, in this thread). order: its place in the planned sequence (lower first)."""
        waited = self.s.start(self.id, order, plan)
        try:
            warmed = self.s.warm_for(plan)
            value = body([FlightWatcher(self.s, self.id, plan.run_id)])
        finally:
            self.s.flew(self.id, plan.run_id)
        return Ran(value, self.s.beside(plan.run_id), round(waited, 3), warmed)
