"""A sweep's cells of one variant, in order, through the scheduler (runner.scheduling): the sleep
`--sleep auto` chooses before a run, whether a cell must run alone, each cell's run (and its
re-run when the chosen sleep proved too short after all), and what the sweep's lanes share."""

from __future__ import annotations

import dataclasses
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from runner import tasks
from runner.campaign import CampaignSettings
from runner.execute import Execution, execute, new_run_id, unrunnable_record
from runner.inputs import SleepSpec
from runner.judge import verdict
from runner.judge.rerun import auto_sleep, longer_sleep
from runner.limits import predict as limit_hits
from runner.limits import read_limits
from runner.limits.host import Limits
from runner.measure import RunSpec, Watcher
from runner.results import RunRecord, cost
from runner.results.needs import thread_need
from runner.scheduling import simulate
from runner.scheduling.admit import SPAWN_MARGIN, Plan
from runner.scheduling.alone import alone_because
from runner.scheduling.memory import free_memory
from runner.scheduling.predict import TYPICAL, Prediction, errors, figure, predict
from runner.scheduling.scheduler import MEMORY_GUARD, Lane, Scheduler
from runner.scheduling.simulate import Exits, priced
from runner.sweep_options import Cell, Progress, SweepOptions
from runner.workload import Workload


def chosen_sleep(sleep: SleepSpec, prediction: Prediction, n: int, per_task: dict, limits: Limits) -> float:
    """The sleep a run starts with. As given, unless `--sleep auto` and the sleep is not twice the
    spawn predicted from the smaller N (with the scheduler's margin): then the sleep the re-run rule
    would give that spawn (auto_sleep, twice it), so that no cell has to run twice. Twice, not once:
    a 1M spawn is the least predictable phase of a sweep (erlang and elixir-spawn took 3.3 and 2.3
    times their 100k prediction once, and half that on the re-run), and a sleep too short costs a
    whole run while a longer one costs only a hold, which other runs overlap. Never for a cell
    whose threads meet a limit here: no sleep makes those valid (the JVM under pid_max starts a
    thread only when another ends)."""
    if not sleep.auto or "spawn" in prediction.guessed or limit_hits(n, per_task, limits):
        return sleep.seconds
    spawn = SPAWN_MARGIN * prediction.spawn_s
    return sleep.seconds if 2 * spawn <= sleep.seconds else auto_sleep(spawn, sleep.seconds)


@dataclass
class Sweeping:
    """What every lane of one sweep shares; counters and stores under its lock."""

    opts: SweepOptions
    sweep_id: str
    readiness: dict[str, tasks.Readiness]
    versions: dict[str, dict[str, str]]
    progress: Progress
    known: list[RunRecord]  # the workload's stored runs, and this sweep's as they end
    limits: Limits  # as they were before the sweep raised any
    total: int
    ns: list[int]
    pending: dict[str, list[tuple[int, Cell]]] = field(default_factory=dict)  # not started yet, by variant
    scheduler: Scheduler | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    t_start: float = field(default_factory=time.monotonic)
    started: int = 0
    finished: int = 0
    program_wall: float = 0.0
    reruns: int = 0  # runs made again by --sleep auto: the chosen sleep proved too short

    @property
    def campaign(self) -> CampaignSettings:
        """What the sweep's runs share with any campaign's (its options' campaign)."""
        return self.opts.campaign

    def runs(self) -> list[RunRecord]:
        with self.lock:
            return list(self.known)

    def mine(self, variant: str, runs: list[RunRecord] | None = None) -> list[RunRecord]:
        """The variant's runs on this machine (its label), of sweeps: what predicts its next run."""
        label = self.campaign.label
        runs = self.runs() if runs is None else runs
        return [r for r in runs if r.variant == variant and r.kind == "sweep" and r.label == label]

    def store(self, record: RunRecord, timeline: list[list[float | int | None]] | None = None) -> None:
        with self.lock:
            self.campaign.out.add_run(record, timeline)

    def began(self, cell: Cell, sleep: float) -> None:
        with self.lock:
            self.started += 1
            self.progress.on_start(cell, self.started, self.total, sleep)

    def ended(self, rows: list[RunRecord]) -> None:
        """A cell is done: its rows join what predicts, the counters and the progress line."""
        with self.lock:
            self.known += rows
            self.program_wall += sum(r.result.wall_s for r in rows if r.result is not None)
            self.finished += 1
            self.progress.on_row(rows[-1], self.finished, self.total, self.eta())

    def take(self, cell: Cell) -> None:
        """The cell starts: it is no longer what the ETA waits for."""
        with self.lock:
            cells = self.pending.get(cell.variant.name, [])
            self.pending[cell.variant.name] = [(i, c) for i, c in cells if c is not cell]

    def eta(self) -> float | None:
        """Seconds until the sweep ends: the cells not started and the runs in flight, replayed
        under the scheduler's rules on their predicted phases (runner.scheduling.simulate); a
        variant's cost not measured yet is taken as a typical one (predict.TYPICAL), so the ETA
        is a guess until the smaller N have run, and then as good as the predictions."""
        if self.scheduler is None:
            return None
        with self.scheduler.cv:
            flights = list(self.scheduler.flights.values())
            waiting = list(self.scheduler.waiting.values())
        now = self.scheduler.clock()
        known: dict[str, list[RunRecord]] = {}
        for r in self.known:  # once per ETA: each cell reads only its variant's
            known.setdefault(r.variant, []).append(r)
        exits = self.exits()
        flights = [dataclasses.replace(f, plan=priced(f.plan, exits)) for f in flights]
        pending: dict[str, list[simulate.Job]] = {}
        for order, plan in sorted(waiting, key=lambda w: w[0]):  # taken from pending, not started
            pending.setdefault(plan.variant, []).append(simulate.predicted(order, priced(plan, exits)))
        for name, cells in self.pending.items():
            jobs = (self._job(i, cell, known.get(name, []), exits) for i, cell in cells)
            pending.setdefault(name, []).extend(jobs)
        return simulate.left_s(flights, pending, now, self.campaign.jobs, free_memory())

    def _job(self, index: int, cell: Cell, known: list[RunRecord], exits: Exits) -> simulate.Job:
        """A cell not started yet, as its predicted run (under the lock; known: its variant's
        runs). As the lane will run it: a cell that will not run (it does not fit the memory cap,
        its toolchain is missing) takes no time, and one that meets a thread limit here is stopped
        at its sleep (_ready_by). Priced at its extrapolated spawn instead, the 1M cells of the
        thread variants (42 GiB and 200 s from a 2 s spawn at 10k) made the ETA 35 to 43 min where
        7 were left, until their smaller N had failed at the limit (the quick start of 68a7055)."""
        v = cell.variant
        if unrunnable(cell, self.readiness[v.name], self.opts, known):
            plan = Plan(str(index), v.name, cell.n, 0.0, 0, 0.0, 0.0, instant=True)
            return simulate.predicted(self.order(index, cell, plan, self.campaign.jobs), plan)
        mine = [r for r in known if r.kind == "sweep" and r.label == self.campaign.label]
        pred = predict(mine, v.name, cell.n, self.campaign.workload, TYPICAL)
        sleep = chosen_sleep(self.opts.sleep, pred, cell.n, v.per_task, self.limits)
        workload = self.campaign.workload
        alone = alone_because(
            cell.n, v.per_task, self.limits, self.campaign.raise_limits, workload.overlaps, workload
        )
        plan = Plan(
            str(index),
            v.name,
            cell.n,
            pred.spawn_s,
            pred.peak,
            pred.exit_s,
            sleep,
            holds_after_ready=workload.holds_after_ready,
            alone=alone,
            warm=pred.warm,
        )
        plan = stopped_by_deadline(plan, _ready_by(self, cell, plan))
        return simulate.predicted(self.order(index, cell, plan, self.campaign.jobs), priced(plan, exits))

    def exits(self) -> Exits:
        """How this sweep's valid runs of its workload ended after their sleep, by N, and which
        variants have such runs (under the lock): what `priced` gives a variant with none."""
        ended: dict[int, list[float]] = {}
        variants: set[str] = set()
        for r in self.known:
            if (
                r.label == self.campaign.label
                and r.verdict == "valid"
                and r.result is not None
                and r.sleep_s is not None
                and r.resolved_workload is self.campaign.workload
            ):
                variants.add(r.variant)
                ended.setdefault(r.n, []).append(max(0.0, r.result.wall_s - r.sleep_s))
        return Exits(frozenset(variants), {n: statistics.median(xs) for n, xs in ended.items()})

    def order(self, index: int, cell: Cell, plan: Plan, jobs: int) -> tuple:
        """A cell's place: with --jobs 1 the planned order (N, variant, repeat); else, within one
        N, the longest predicted first, so the short ones fill the holds of the long ones."""
        if jobs == 1 or plan.instant:
            return (self.ns.index(cell.n), 0.0, index)
        return (self.ns.index(cell.n), -plan.lasts_s, index)


def stopped_by_deadline(plan: Plan, ready_by: float | None) -> Plan:
    """The plan of a run that is stopped if `ready` has not come by ready_by (seconds from its
    fork): its spawn lasts that long at most, and nothing holds after it."""
    if ready_by is None or plan.spawn_s <= ready_by:
        return plan
    return dataclasses.replace(plan, spawn_s=ready_by)


def lane(ctx: Sweeping, cells: list[tuple[int, Cell]]) -> Callable[[Lane], None]:
    """The lane of one variant: its cells in order (smaller N first: they predict the larger)."""

    def body(lane: Lane) -> None:
        for index, cell in cells:
            ctx.ended(run_cell(ctx, lane, index, cell))

    return body


def _identity(ctx: Sweeping, cell: Cell) -> dict[str, object]:
    opts = ctx.opts
    return dict(
        sweep_id=ctx.sweep_id,
        label=opts.campaign.label,
        repeat=cell.repeat,
        sleep_requested=str(opts.sleep),
        versions=ctx.versions[cell.variant.name],
        memory_cap=opts.memory_cap,
        env_override=opts.env_override,
        **opts.campaign.workload.record_fields(opts.campaign.params),
        chosen_version=cell.variant.chosen_version,
        version_of=cell.variant.version_of,
    )


def unrunnable(
    cell: Cell, ready: tasks.Readiness, opts: SweepOptions, known: list[RunRecord]
) -> verdict.Verdict | None:
    """Why a cell cannot or must not run (it still gets a row: no variant is skipped silently).

    A cell whose estimated need (earlier runs of the variant at smaller N, else the kernel memory
    of its OS threads) exceeds the memory cap is not run: it could only end at the cap, after
    minutes of pushing the machine to its edge.
    """
    name = cell.variant.name
    if not ready.usable:
        return verdict.toolchain_missing(name, ready.problems)
    build_error = opts.build_errors.get(cell.variant.folder.name)
    if build_error:
        return verdict.build_failed(name, build_error)
    if problem := opts.campaign.workload.cell_problem(cell.n):
        return verdict.Verdict("failed", *problem)
    if opts.memory_cap is not None:
        need = cost.estimate(known, name, cell.variant.per_task, cell.n, opts.campaign.workload)
        if need is not None and need.bytes > opts.memory_cap:
            return verdict.does_not_fit(cell.n, need.describe(), opts.memory_cap)
    return None


def _not_run(ctx: Sweeping, lane: Lane, index: int, cell: Cell, why: verdict.Verdict) -> list[RunRecord]:
    """The row of a cell that does not run, written at its turn (with --jobs 1, where it was)."""
    identity = _identity(ctx, cell)
    record = unrunnable_record(
        cell.variant, cell.n, why, sleep_s=ctx.opts.sleep.seconds, attempt=1, **identity
    )
    plan = Plan(record.run_id or new_run_id(), cell.variant.name, cell.n, 0.0, 0, 0.0, 0.0, instant=True)
    lane.run(ctx.order(index, cell, plan, ctx.campaign.jobs), plan, lambda _: ctx.store(record))
    return [record]


def run_cell(ctx: Sweeping, lane: Lane, index: int, cell: Cell) -> list[RunRecord]:
    """One cell: one run, plus a second with a longer sleep when --sleep auto calls for it, and
    one more, alone, when the scheduler stopped it to keep the host's memory (runner.scheduling)."""
    opts, v = ctx.opts, cell.variant
    ctx.take(cell)
    cannot = unrunnable(cell, ctx.readiness[v.name], opts, ctx.runs())
    if cannot:
        return _not_run(ctx, lane, index, cell, cannot)
    workload = opts.campaign.workload  # the one its variant runs (Variant.under)
    pred = predict(ctx.mine(v.name), v.name, cell.n, workload)
    sleep = chosen_sleep(opts.sleep, pred, cell.n, v.per_task, ctx.limits)
    alone = alone_because(
        cell.n, v.per_task, ctx.limits, opts.campaign.raise_limits, workload.overlaps, workload
    )
    records: list[RunRecord] = []
    order: tuple | None = None
    retried = False
    while True:
        plan = Plan(new_run_id(), v.name, cell.n, pred.spawn_s, pred.peak, pred.exit_s, sleep, warm=pred.warm)
        plan = dataclasses.replace(plan, holds_after_ready=workload.holds_after_ready, alone=alone)
        plan = stopped_by_deadline(plan, _ready_by(ctx, cell, plan))
        order = order or ctx.order(index, cell, plan, opts.campaign.jobs)
        attempt = len(records) + 1
        record, longer = _attempt(ctx, lane, (*order, attempt), plan, cell, pred, not retried, records)
        records.append(record)
        if record.code == MEMORY_GUARD:
            alone = "the scheduler stopped its run beside others to keep the host's memory"
            continue
        if longer is None:
            return records
        ctx.progress.log(
            f"  {v.name} N={cell.n:,}: spawning took {record.result.ready_s:.1f} s > sleep {sleep:g} s; "  # type: ignore[union-attr]
            f"running again with sleep {longer:g} s (--sleep auto)"
        )
        sleep, retried = longer, True
        pred = predict([*ctx.mine(v.name), *records], v.name, cell.n, workload)


def _attempt(
    ctx: Sweeping,
    lane: Lane,
    order: tuple,
    plan: Plan,
    cell: Cell,
    pred: Prediction,
    may_retry: bool,
    before: list[RunRecord],
) -> tuple[RunRecord, float | None]:
    """One run of the cell at its turn, stored; and the longer sleep of a re-run when it needs one."""
    opts = ctx.opts

    def body(watchers: list[Watcher]) -> Execution:
        ctx.began(cell, plan.sleep)
        on_sample = lambda s: ctx.progress.on_sample(cell, s)  # noqa: E731
        spec = RunSpec(
            timeout=opts.timeout,
            ready_by=_ready_by(ctx, cell, plan),
            interval=opts.campaign.interval,
            memory_cap=opts.memory_cap,
            on_sample=on_sample,
            watchers=watchers,
        )
        return execute(cell.variant, cell.n, plan.sleep, opts.campaign.settings(spec, opts.env_override))

    ran = lane.run(order, plan, body)
    ex = ran.value
    identity = {k: v for k, v in _identity(ctx, cell).items() if k != "memory_cap"}
    predicted = {**pred.to_json(), **errors(pred, ex.result.ready_s, figure(ex.result))}
    attempt = len(before) + 1
    warmed = ran.warmed.to_json() if ran.warmed else None
    record = ex.record(
        plan.run_id, attempt=attempt, beside=ran.beside, predicted=predicted, warmed=warmed, **identity
    )
    if ex.result.stopped_by == MEMORY_GUARD:  # not the program's doing: run again, alone
        record = record.replace(
            verdict="invalid", code=MEMORY_GUARD, reason=ex.result.stopped_reason, superseded=True,
            remedy="run again alone by the sweep",
        )  # fmt: skip
        ctx.store(record, ex.timeline())
        return record, None
    record = _with_need(record, cell, [*ctx.runs(), *before], ctx.campaign.workload)
    longer = (
        longer_sleep(ex.judged.code, ex.result.ready_s, cell.variant, cell.n, opts.sleep.seconds)
        if opts.sleep.auto and may_retry
        else None
    )
    if longer is not None:
        record = record.replace(superseded=True, remedy=f"re-run by --sleep auto with sleep {longer:g} s")
        with ctx.lock:
            ctx.reruns += 1
    ctx.store(record, ex.timeline())
    return record, longer


def _ready_by(ctx: Sweeping, cell: Cell, plan: Plan) -> float | None:
    """When a cell that meets a thread limit here (and is not run with it raised) is stopped if
    `ready N` has not come: at its sleep, when its first tasks end, so its N tasks can no longer
    all be alive at once. No sleep makes such a cell valid (chosen_sleep), and it runs alone
    (runner.scheduling.alone): java-threads at 100k, whose JVM starts a thread only once another
    has ended, used to run on alone for 100 s to say `ready` too late, and python-threads for 20
    to 97 s, a quarter of the default sweep. When is the workload's (Workload.ready_deadline)."""
    opts = ctx.opts
    deadline = opts.campaign.workload.ready_deadline(plan.sleep, opts.campaign.params)
    if deadline is None or opts.campaign.raise_limits:
        return None
    return deadline if limit_hits(cell.n, cell.variant.per_task, ctx.limits) else None


def _with_need(record: RunRecord, cell: Cell, known: list[RunRecord], workload: Workload) -> RunRecord:
    """A thread cell without a figure says what N would take in memory (runner.results.needs),
    after the limits it names: raising them is no use when the machine cannot hold N threads."""
    if record.verdict == "valid":
        return record
    v = cell.variant
    takes = thread_need(known, v.name, v.per_task, cell.n, read_limits(), workload)
    if takes is None:
        return record
    return record.replace(remedy=f"{record.remedy}; {takes}" if record.remedy else takes)
