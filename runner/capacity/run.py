"""A capacity search per (variant, budget): where it starts, its result record, and the session
(start/end records, raised limits) that frames a search or a check. See the package docstring."""

from __future__ import annotations

import contextlib
import json
import math
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from runner import tasks
from runner.capacity import evidence, floor
from runner.capacity.evidence import Boundary, fits, outcomes
from runner.capacity.prior import Prior, checks_after, prior
from runner.capacity.probes import CapacityOptions, CapacityProgress, Prober, stored_checks
from runner.capacity.search import Found, search
from runner.capacity.stall import STALLED
from runner.execute import context
from runner.inputs import MAX_N
from runner.limits import futex, read_limits
from runner.limits.host import THREAD_FLOOR_BYTES
from runner.limits.predict import max_n
from runner.limits.raising import for_budget, raised_limits
from runner.results import RunRecord, cost, labels, latest_capacity, workloads
from runner.results.capacity import CapacityResult
from runner.scheduling.scheduler import Lane, Scheduler
from runner.signals import sigterm_raises
from runner.tasks import program

CALIBRATION_N = (1, 10_000)  # when no stored run predicts: two probes give a baseline and a slope
KERNEL_LIMIT_MARGIN = 0.98  # start just below the kernel limit a variant's tasks would hit


@dataclass(frozen=True)
class Start:
    n: int
    how: str  # how it was predicted, in words
    baseline: int  # the cgroup figure at N=1: where the search's memory line starts
    ceiling: int = MAX_N  # just past the kernel limit the tasks' threads or mappings hit
    fills: float | None = 1.0  # the share of the budget n is expected to use (None: not known)
    hint: int | None = None  # the N to probe once n is valid (where the stored answer failed)
    noisy: bool = False  # stored runs passed and failed at random there: search as noisy


@dataclass(frozen=True)
class Smaller:
    """The answer for the largest smaller budget searched for the variant."""

    budget: int
    max_n: int
    peak: int | None = None  # the cgroup peak of its valid run at max_n


def _start(
    variant: tasks.Variant,
    budget: int,
    prober: Prober,
    below: Smaller | None,
    before: Prior | None = None,
) -> Start:
    """Where the search starts, and how that was predicted: the answer an earlier search found at
    this very budget (stored in OUT) when there is one, else the sweep's line or the smaller
    budget's answer scaled. An earlier answer is the best guess there is (a re-run after an
    upgrade moves little), and the search still proves it: valid twice, and the N just above
    failing, so a wrong guess costs probes, never a wrong answer."""
    fit = cost.line(prober.opts.history, variant.name, workload=prober.opts.campaign.workload)
    known = before is not None and before.result.max_n > 0  # (without a hint: none failed below the ceiling)
    if fit is None and not known:  # a line from the stored runs of this boundary, else calibrate:
        # a baseline and a slope from two small runs under the cap
        fit = cost.line(_as_sweep(prober.earlier), variant.name, workload=prober.opts.campaign.workload)
        for n in CALIBRATION_N if fit is None else ():
            prober(n)
        if fit is None:
            fit = cost.line(_as_sweep(prober.probes), variant.name, workload=prober.opts.campaign.workload)
    baseline = max(0, fit.at(1)) if fit is not None else 0
    fills: float | None = 1.0
    hint, noisy = None, False
    if known and before is not None:
        stored = before.result
        start, hint, noisy = stored.max_n, before.hint, before.noisy
        how = f"{stored.max_n:,} fit the search stored for this budget on {stored.finished_at[:10]}"
        how += f", {hint:,} failed" if hint is not None else ""
        how += f"; searched as noisy: {before.why_noisy}" if noisy else ""
        fills = stored.peak_bytes / budget if stored.peak_bytes else None
    elif fit is not None:
        start, how = fit.solve(budget), f"from {fit.how}"
    else:
        start, how = CALIBRATION_N[0], "no valid run to predict from: searched up from N=1"
    if not known and below is not None and below.max_n > 0 and below.max_n * budget // below.budget < start:
        # A runtime that sizes its heap from the cap (the JVM: a quarter of it) fits in proportion
        # to the budget, far below the sweep's line; the smaller budget's answer says so, and
        # the share of that budget it used is the share this start is expected to use.
        start = below.max_n * budget // below.budget
        fills = below.peak / below.budget if below.peak else None
        how = f"{below.max_n:,} fit in {below.budget >> 20:,} MiB, scaled to the budget"
        how += " (below the sweep's line)"
    if variant.per_task.get("threads") and not known:  # an OS thread costs its kernel memory
        # (a guess from Rust's threads: C's fit 2 % more, so a stored answer is not cut by it)
        start = min(start, max(1, budget // THREAD_FLOOR_BYTES))
    workload = variant.workload
    limited = variant.per_task or workload.caps_n()  # a connection always needs one
    if limited and (allowed := max_n(variant.per_task, read_limits(), workload=workload)):
        # No more tasks start than the kernel limits allow their threads and mappings (as
        # raised, with --raise-limits; Crystal's fiber stacks are mappings), or a connection's
        # descriptors (RLIMIT_NOFILE's hard limit, fs.nr_open): start just below.
        # memory may say there is room beyond it: the search probes no further than just past
        ceiling = min(MAX_N, math.ceil(allowed[0] / KERNEL_LIMIT_MARGIN))
        # a stored answer between the two was valid there (the ceiling itself, when nothing failed)
        below_limit = max(1, int(KERNEL_LIMIT_MARGIN * allowed[0]))
        start = min(start, ceiling) if known else min(start, below_limit)
        return Start(start, how, baseline, ceiling, fills, hint, noisy)
    return Start(start, how, baseline, fills=fills, hint=hint, noisy=noisy)


def boundary(variant: tasks.Variant, budget: int, identity: dict[str, Any]) -> Boundary:
    """The boundary a search or check of the variant at this budget measures now."""
    workload = variant.workload
    return Boundary(
        variant.name,
        budget,
        workload,
        identity.get("label"),
        program.digest(variant.folder.dir),
        json.dumps(identity.get("versions", {}), sort_keys=True),
        json.dumps(workload.identity(identity.get("params")), sort_keys=True),
    )


def _one(
    variant: tasks.Variant,
    budget: int,
    opts: CapacityOptions,
    stored: list[RunRecord],
    identity: dict[str, Any],
    progress: CapacityProgress,
    below: Smaller | None = None,
    before: Prior | None = None,
    timing: list[RunRecord] | None = None,
    lane: Lane | None = None,
    order: tuple = (),
) -> CapacityResult:
    """Search one (variant, budget) from the stored runs of its boundary; each probe is stored
    the moment it ends. --fresh sets the stored runs and answer aside: what a first search costs.
    timing: the stored answer's probes (of any program): how fast spawning went near this cap.
    lane, order: the scheduler's lane the probes run in, and the search's place in the order."""
    prober = Prober(variant, budget, opts, identity, progress, lane=lane, order=order)
    prober.earlier = [*stored, *(r for r in timing or [] if r not in stored)]
    start = _start(variant, budget, prober, below, None if opts.fresh else before)
    known = outcomes([] if opts.fresh else stored)
    found = search(
        prober.outcome,
        start.n,
        budget,
        start.baseline,
        start.ceiling,
        fills=start.fills,
        noisy=start.noisy,
        hint=start.hint,
        known=known,
    )
    pooled = [*([] if opts.fresh else stored), *prober.probes]
    return answer(
        variant,
        budget,
        found,
        pooled,
        prober.probes,
        identity,
        predicted_n=start.n,
        prediction=start.how,
    )


def answer(
    variant: tasks.Variant,
    budget: int,
    found: Found,
    pooled: list[RunRecord],
    ran: list[RunRecord],
    identity: dict[str, Any],
    predicted_n: int | None = None,
    prediction: str = "",
) -> CapacityResult:
    """The result row of an answer: `found` from the pooled runs, what stopped the first failing
    one, the sleep and peak of a fitting run at max_n and whether such runs stalled, and the
    cost of the runs this command made (`ran`) against the floor the evidence requires; where
    the search started (predicted_n) and how that was predicted (prediction)."""
    lo, hi = found.max_n, found.first_failing_n
    failing = next((r for r in pooled if r.n == hi and not fits(r)), None)
    passing = [r for r in pooled if r.n == lo and fits(r)] if lo else []
    last = passing[-1] if passing else None
    stalled = [r for r in passing if r.code == STALLED]
    stopped_by = stopped_reason = None
    if failing is not None and failing.verdict == "valid":  # valid but for an OOM kill in its tree
        stopped_by, stopped_reason = "out-of-memory", "a process of the run was OOM-killed at the cap"
    elif failing is not None:
        stopped_by, stopped_reason = failing.code, failing.reason
    need = 3 if found.noisy else 2
    return CapacityResult(
        variant=variant.name,
        budget_bytes=budget,
        max_n=lo,
        first_failing_n=hi,
        stopped_by=stopped_by,
        stopped_reason=stopped_reason,
        probes=len(ran),
        confirmed=len(passing) >= 2,
        noisy=found.noisy,
        flaky_up_to=found.flaky_up_to,
        flaky_passed=found.flaky_passed,
        flaky_failed=found.flaky_failed,
        cost_s=round(floor.cost(floor.spent(ran, map(fits, ran))), 3),
        floor_s=round(floor.floor(floor.spent(pooled, map(fits, pooled)), lo, hi, need), 3),
        capacity_id=identity["sweep_id"],
        finished_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        probe_ids=[r.run_id or "" for r in ran],
        sleep_s=last.sleep_s if last is not None else None,
        peak_bytes=last.result.cgroup_peak if last is not None and last.result else None,
        workload=variant.workload.name,
        evidence_runs=len(pooled),
        passed_at_max=found.passed_at_max,
        program=program.digest(variant.folder.dir),
        stalled=len(stalled),
        stall=stalled[-1].reason if stalled else None,
        stall_remedy=stalled[-1].remedy if stalled else None,
        label=identity.get("label"),
        params=dict(identity.get("params") or {}),
        predicted_n=predicted_n,
        prediction=prediction,
    )


def _as_sweep(records: list[RunRecord]) -> list[RunRecord]:
    """Calibration probes read as sweep runs, so the same line fitting applies to them."""
    return [r.replace(kind="sweep") for r in records]


Identity = Callable[[tasks.Variant], dict[str, Any]]


@contextlib.contextmanager
def session(opts: CapacityOptions, progress: CapacityProgress, kind: str, busy: bool) -> Iterator[Identity]:
    """The frame of a capacity search or check: its start and end records (machine, limits,
    versions), SIGTERM as an interrupt, and the kernel limits raised for thread variants when
    asked (and busy, i.e. something will run). Yields the identity each probe record carries."""
    session_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    c = opts.campaign
    versions, meta = context(c.variants)
    label = label_of(opts)
    labels.check_free(c.out.path, label, meta["fingerprint"])
    start = {"sweep_id": session_id, "event": "start", "kind": kind, **meta, "label": label}
    start["workload"] = c.workload.name  # stored rows keep the name
    fields = c.workload.record_fields(c.params)  # its parameters' values, as a sweep stores them
    c.out.add_sweep({**start, **fields, "budgets": opts.budgets})
    # No more tasks can fit than the budget holds of their least cost (a thread's kernel memory).
    need = for_budget(max(opts.budgets), c.variants) if c.raise_limits and busy else None
    raising = need is not None
    limit_ctx: contextlib.AbstractContextManager[object] = contextlib.nullcontext()
    if need is not None:
        limit_ctx = raised_limits(need.n, need.per_task, log=progress.log, workload=need.workload)
    with sigterm_raises(), limit_ctx:
        if raising:  # what the probes had, for `inspect`
            c.out.add_limits_raised(session_id, read_limits())
        yield lambda variant: {
            "sweep_id": session_id,
            "versions": versions.get(variant.name, {}),
            "label": label,
            **fields,
        }
    c.out.add_sweep({"sweep_id": session_id, "event": "end"})


def label_of(opts: CapacityOptions) -> str:
    """The label a search stores: --label, else the host name (with --futex-hash's suffix)."""
    return opts.campaign.label or futex.label(socket.gethostname(), opts.campaign.futex_hash)


def mine(opts: CapacityOptions) -> list[dict[str, Any]]:
    """The stored capacity results of the options' workload, parameters and label (a row written
    before there were workloads is a sleep result; one written before answers kept their
    parameters ran with the defaults; one written before rows kept their label was labelled with
    its host name, as a search without --label still is): `--resume` and a larger budget's start
    never take an answer found with another `--buffer` or `--rate`."""
    label = label_of(opts)
    c = opts.campaign
    default = c.label is None or c.label == futex.label(socket.gethostname(), c.futex_hash)
    w = c.workload
    want, defaults = w.identity(c.params), w.parse_parameters({})
    return [
        r
        for r in c.out.existing_capacity()
        if workloads.resolved(r) is w
        and (r.get("label") == label or (r.get("label") is None and default))
        and w.identity(r.get("params") or defaults) == want
    ]


def run_capacity(opts: CapacityOptions, progress: CapacityProgress) -> list[CapacityResult]:
    """Every (variant, budget) not finished yet; returns the results of this call. Each variant's
    searches run in order of budget in a lane of their own (a smaller budget's answer starts the
    larger one's search), the lanes side by side as the scheduler's rules allow (runner.scheduling;
    jobs 1: one probe at a time, budget by budget, variant by variant, as always)."""
    c = opts.campaign
    fitted = {key: CapacityResult.from_json(row) for key, row in latest_capacity(mine(opts)).items()}
    done = set(fitted) if c.resume else set()
    records = [RunRecord.from_json(row) for row in c.out.existing_rows()]  # read once
    todo = [(v, b) for b in opts.budgets for v in c.variants if (v.name, b) not in done]
    if c.resume:
        progress.log(f"resume: {len(done)} result(s) already in {c.out.path}, {len(todo)} to search")
    opts = replace(opts, limits=opts.limits or read_limits())  # before any are raised: who must run alone
    search = _Searches(opts, progress, records, fitted, len(todo))
    with session(opts, progress, "capacity", busy=bool(todo)) as identity:
        lanes = [
            search.lane(identity, [(todo.index((v, b)), v, b) for v, b in todo if v is variant])
            for variant in c.variants
            if any(v is variant for v, _ in todo)
        ]
        Scheduler(c.jobs).run_lanes(lanes)
    return search.results


class _Searches:
    """What the lanes of one `memrun capacity` share: the stored evidence, the answers so far
    (a smaller budget's starts a larger one's search), the results in the order they end."""

    def __init__(
        self,
        opts: CapacityOptions,
        progress: CapacityProgress,
        records: list[RunRecord],
        fitted: dict[tuple[str, int], CapacityResult],
        total: int,
    ) -> None:
        self.opts, self.progress, self.fitted, self.total = opts, progress, fitted, total
        workload = opts.campaign.workload
        self.pooled = evidence.gather((r for r in records if r.resolved_workload is workload), workload)
        self.checks = stored_checks(records, workload)
        self.by_id = {r.run_id: r for r in records}
        self.results: list[CapacityResult] = []
        self.stored = mine(opts)  # this label's and workload's stored results: each search's history
        self.lock = threading.Lock()

    def lane(self, identity: Identity, todo: list[tuple[int, tasks.Variant, int]]) -> Callable[[Lane], None]:
        def body(lane: Lane) -> None:
            for i, variant, budget in todo:
                self.one(identity, lane, i, variant, budget)

        return body

    def one(self, identity: Identity, lane: Lane, i: int, variant: tasks.Variant, budget: int) -> None:
        opts = self.opts
        with self.lock:
            smaller = [r for (v, b), r in self.fitted.items() if v == variant.name and b < budget]
            earlier = self.fitted.get((variant.name, budget))
        largest = max(smaller, key=lambda r: r.budget_bytes) if smaller else None
        below = Smaller(largest.budget_bytes, largest.max_n, largest.peak_bytes) if largest else None
        history = [
            CapacityResult.from_json(r)
            for r in self.stored
            if (r["variant"], r["budget_bytes"]) == (variant.name, budget)
        ]
        before = prior(earlier, checks_after(self.checks, earlier), history) if earlier is not None else None
        ids = identity(variant)
        stored = self.pooled.get(boundary(variant, budget, ids), [])
        by_id = self.by_id
        timing = [by_id[p] for p in earlier.probe_ids if p in by_id] if earlier and not opts.fresh else []
        result = _one(variant, budget, opts, stored, ids, self.progress, below, before, timing, lane, (i,))
        with self.lock:
            self.fitted[(variant.name, budget)] = result
            opts.campaign.out.add_capacity(result.to_json())
            self.results.append(result)
            self.progress.on_result(result, len(self.results), self.total)
