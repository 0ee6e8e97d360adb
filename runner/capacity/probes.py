"""Capacity probes: runs under the cap, stored the moment they end, re-run once when their
predicted sleep proved too short."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from runner import tasks
from runner.campaign import CampaignSettings
from runner.capacity.evidence import RETRY, fits
from runner.capacity.search import Probe
from runner.capacity.stall import StallWatch, room
from runner.capacity.timing import MAX_SLEEP, SPAWN_MARGIN, probe_timeout, rounded_sleep, sleep_for
from runner.execute import Execution, Settings, execute, new_run_id, unrunnable_record
from runner.judge import verdict
from runner.limits.host import Limits
from runner.measure import RunSpec, Sample
from runner.results import RunRecord
from runner.results.capacity import CapacityResult
from runner.scheduling.admit import Plan
from runner.scheduling.alone import alone_because
from runner.scheduling.predict import errors, figure, predict
from runner.scheduling.scheduler import MEMORY_GUARD, Lane
from runner.workload import Workload


@dataclass(frozen=True)
class CapacityOptions:
    """A capacity search: its campaign's shared settings (variants, OUT, workload and
    parameters, sampling, futex hash, limits, label, jobs, resume:
    runner.campaign.CampaignSettings) and what only a search has: its budgets, the stored runs
    that predict, --fresh, and the kernel limits as they were before any were raised."""

    campaign: CampaignSettings
    budgets: list[int]
    history: list[RunRecord] = field(default_factory=list)  # stored sweeps that predict
    fresh: bool = False  # --fresh: start from the sweeps, not from answers OUT already holds
    limits: Limits = field(default_factory=dict)  # as before any were raised: who runs alone


@dataclass
class CapacityProgress:
    """Callbacks the CLI uses; the search itself prints nothing."""

    on_probe: Callable[[str, int, RunRecord, bool], None] = lambda variant, budget, record, ok: None
    on_result: Callable[[CapacityResult, int, int], None] = lambda result, i, total: None
    log: Callable[[str], None] = lambda line: None


# A probe whose OS threads are still ending at its timeout runs on, up to this many times the
# timeout more: how long thousands of threads take to end varies far more than their start.
TIMEOUT_GRACE = 2.0


GROWING = 1.02  # memory or threads up by this much over the last quarter of a run: still spawning


def still_growing(timeline: Sequence[Sample]) -> bool:
    """Whether a run stopped at its readiness deadline was still spawning: its memory (cgroup, else
    tree RSS) or thread count rose over the last quarter of it. A runtime that sits at its own
    heap limit, collecting garbage (the JVM sizes its heap from the cap), is flat, and a longer
    sleep would only make it sit there longer."""
    if len(timeline) < 4:
        return True  # too short to tell: give it the longer sleep
    cut = timeline[-1].t * 0.75

    def peak(points: Sequence[Sample], field: str) -> float:
        return max((getattr(p, field) or 0 for p in points), default=0)

    before, late = [p for p in timeline if p.t < cut], [p for p in timeline if p.t >= cut]
    memory = "cgroup" if any(p.cgroup for p in timeline) else "rss"
    return any(peak(late, f) > GROWING * peak(before, f) for f in (memory, "threads"))


def too_short(record: RunRecord, growing: bool = True) -> bool:
    """A first probe whose tasks were not all alive within its (predicted) sleep, while they were
    still being spawned."""
    return (
        growing
        and record.code == "spawn-outlasted-sleep"
        and not (record.sleep_requested or "").startswith(RETRY)
        and record.sleep_s is not None
        and record.sleep_s < MAX_SLEEP
    )


def stored_checks(records: Iterable[RunRecord], workload: Workload) -> list[RunRecord]:
    """The stored `--check` runs of one workload: whether an answer held says how a re-run of
    its search should treat the boundary (capacity.prior)."""
    return [r for r in records if r.kind == "capacity-check" and r.resolved_workload is workload]


@dataclass
class Prober:
    """Runs probes of one (variant, budget) under the cap, stores each the moment it ends, and
    re-runs once with a longer sleep a probe whose predicted sleep was too short while its tasks
    were still being spawned. A probe whose exit stalls after its sleep is stopped there
    (capacity.stall), and its timeout leaves room for the stall to show."""

    variant: tasks.Variant
    budget: int
    opts: CapacityOptions
    identity: dict[str, Any]
    progress: CapacityProgress
    kind: str = "capacity-probe"
    probes: list[RunRecord] = field(default_factory=list)
    flat: set[str] = field(default_factory=set)  # run_ids of probes stopped while nothing grew
    earlier: list[RunRecord] = field(default_factory=list)  # stored probes of this boundary
    lane: Lane | None = None  # the scheduler's lane its probes run in (None: at once, alone)
    order: tuple = ()  # the search's place in the planned order; each probe adds its count
    count: int = 0

    def run(self, n: int, sleep: float, how: str) -> RunRecord:
        if problem := self.variant.workload.cell_problem(n):
            # A failure the machine decides (connections: past the descriptors this process can
            # grant), stored as one, never a run whose client cannot open a single connection.
            judged = verdict.Verdict("failed", *problem)
            identity = {**self.identity, "memory_cap": self.budget, "sleep_s": sleep}
            record = unrunnable_record(
                self.variant, n, judged, kind=self.kind, sleep_requested=f"{how}:{sleep:g}", **identity
            )
            self.opts.campaign.out.add_run(record)
            self.probes.append(record)
            return record
        timeout = max(probe_timeout(self._history(), self.variant.name, n, sleep), room(sleep))
        spec = RunSpec(
            timeout=timeout,
            ready_by=sleep,
            timeout_grace=TIMEOUT_GRACE * timeout,  # a capacity is about memory, not exit speed
            interval=self.opts.campaign.interval,
            memory_cap=self.budget,
            stop_when=StallWatch(sleep),
        )
        ex, more = self._execute(n, sleep, spec)
        while ex.result.stopped_by == MEMORY_GUARD:  # not the program's doing: run again, alone
            stopped = ex.record(kind=self.kind, sleep_requested=f"{how}:{sleep:g}", **more, **self.identity)
            stopped = stopped.replace(
                verdict="invalid", code=MEMORY_GUARD, reason=ex.result.stopped_reason, superseded=True
            )
            self.opts.campaign.out.add_run(stopped, ex.timeline())
            ex, more = self._execute(n, sleep, spec, alone="stopped beside others to keep the host's memory")
        record = ex.record(kind=self.kind, sleep_requested=f"{how}:{sleep:g}", **more, **self.identity)
        self.opts.campaign.out.add_run(record, ex.timeline())
        self.probes.append(record)
        if ex.result.ready_deadline_s is not None and not still_growing(ex.result.timeline):
            self.flat.add(record.run_id or "")
        return record

    def _settings(self, spec: RunSpec) -> Settings:
        """The probe's settings: its spec, and how its command is made (the search's)."""
        return self.opts.campaign.settings(spec)

    def _execute(
        self, n: int, sleep: float, spec: RunSpec, alone: str | None = None
    ) -> tuple[Execution, dict[str, object]]:
        """The probe's run, at its turn in the scheduler's lane (when it has one; its watchers
        then join the spec), and what the record stores of that: its run id, what ran beside it,
        what was predicted."""
        if self.lane is None:
            return execute(self.variant, n, sleep, self._settings(spec)), {}
        v = self.variant
        pred = predict([r for r in self._history() if r.result], v.name, n, self.opts.campaign.workload)
        peak = min(pred.peak, self.budget)  # its cgroup is capped there: no more can it take
        raising = self.opts.campaign.raise_limits
        # a retry's own reason (stopped by the memory guard beside others) holds: it runs alone
        alone = alone or alone_because(n, v.per_task, self.opts.limits, raising, v.workload.overlaps)
        warm = min(pred.warm, self.budget)
        plan = Plan(new_run_id(), v.name, n, pred.spawn_s, peak, pred.exit_s, sleep, alone=alone, warm=warm)
        plan = dataclasses.replace(plan, holds_after_ready=v.workload.holds_after_ready)
        self.count += 1
        ran = self.lane.run(
            (*self.order, self.count),
            plan,
            lambda w: execute(v, n, sleep, self._settings(dataclasses.replace(spec, watchers=w))),
        )
        ex = ran.value
        predicted = {**pred.to_json(), "peak": peak, **errors(pred, ex.result.ready_s, figure(ex.result))}
        warmed = ran.warmed.to_json() if ran.warmed else None
        return ex, {"run_id": plan.run_id, "beside": ran.beside, "predicted": predicted, "warmed": warmed}

    def _history(self) -> list[RunRecord]:
        """The sweeps, the stored probes of this very boundary and this search's own: what its
        sleeps and timeouts are learnt from. Near a cap, spawning is slower than the sweep saw
        (reclaim, GC), and the probes an earlier search of the same variant and budget ran say
        by how much, so a re-run's first probe is not one whose sleep is too short (probes
        under other caps, and checks, are left out: they ran under other caps and sleeps)."""
        return [r for r in self.opts.history if r.kind == "sweep"] + self.earlier + self.probes

    def __call__(self, n: int, sleep: float | None = None) -> RunRecord:
        if sleep is None:
            sleep = sleep_for(self._history(), self.variant.name, n)
        record = self.run(n, sleep, "capacity")
        if too_short(record, growing=record.run_id not in self.flat):
            # The sleep was predicted, and spawning near a cap is slower than the sweep saw:
            # a late probe says nothing about memory, so it is run once more with a longer sleep.
            ready = record.result.ready_s if record.result else None
            longer = rounded_sleep(max(2 * (record.sleep_s or 0.0), SPAWN_MARGIN * (ready or 0.0)))
            record = self.run(n, longer, RETRY)
        self.progress.on_probe(self.variant.name, self.budget, record, fits(record))
        return record

    def outcome(self, n: int, sleep: float | None = None) -> Probe:
        """The probe at n as the search sees it: fitted, and the cgroup peak that says how full."""
        record = self(n, sleep)
        return Probe(fits(record), record.result.cgroup_peak if record.result else None)
