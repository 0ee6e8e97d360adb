"""`memrun capacity --check`: re-measure each settled answer, and let what it sees count.

The check re-runs max_n (once for a point answer, three times for a band, with the answer's
sleep) and 1.05 x the first failing N. Its runs join the evidence of the boundary
(runner.capacity.evidence): a failure at max_n, or a fit past the first failing N, leaves a
lower answer, and the search goes on from all the runs until one is settled again (noisy from
then on: three fits, a step below the first failure). Every checked answer is stored again as a
new row that says what the check did ("held in a check", "lowered: failed at 74,600 in a
check"). An answer whose runs were of another program or runtime version is not checked: its
evidence is not about what runs now."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner import tasks
from runner.capacity import evidence
from runner.capacity.evidence import fits, outcomes
from runner.capacity.prior import seen_noisy
from runner.capacity.probes import CapacityOptions, CapacityProgress, Prober
from runner.capacity.recheck import recheck
from runner.capacity.run import answer, boundary, mine, session
from runner.capacity.search import Probe, _State
from runner.inputs import MAX_N
from runner.results import RunRecord, cost, latest_capacity
from runner.results.capacity import CapacityResult


@dataclass
class BoundaryCheck:
    """One stored answer re-run: its runs at max_n and above the first failing N, and the
    answer stored afterwards (None when it was not checked, with the reason in `skipped`)."""

    variant: str
    budget_bytes: int
    max_n: int
    above_n: int | None = None
    sleep_s: float | None = None
    at_max: list[RunRecord] | None = None
    above: RunRecord | None = None
    noisy: bool = False
    after: CapacityResult | None = None
    skipped: str | None = None

    @property
    def held(self) -> bool:
        """A point holds when max_n fitted again and the N past its first failure did not; a band
        makes no claim above max_n, and holds when max_n fitted in every run."""
        if not self.at_max:
            return False
        fitted = all(fits(r) for r in self.at_max)
        return fitted and (self.noisy or self.above is None or not fits(self.above))

    @property
    def lowered_to(self) -> int | None:
        return self.after.max_n if self.after is not None and self.after.max_n != self.max_n else None

    def to_json(self) -> dict[str, Any]:
        at_max = self.at_max or []
        return {
            "variant": self.variant,
            "budget_bytes": self.budget_bytes,
            "max_n": self.max_n,
            "runs_at_max": len(at_max),
            "fitted_at_max": sum(fits(r) for r in at_max),
            "above_n": self.above_n,
            "above_failed": None if self.above is None else not fits(self.above),
            "above_code": None if self.above is None else self.above.code,
            "sleep_s": self.sleep_s,
            "noisy": self.noisy,
            "held": self.held,
            "lowered_to": self.lowered_to,
            "why": self.after.why if self.after is not None else None,
            "skipped": self.skipped,
            "run_ids": [r.run_id for r in [*at_max, *([self.above] if self.above else [])]],
        }


def _why(check: BoundaryCheck, first_failing_n: int | None) -> str:
    if check.lowered_to is None:
        return "held in a check" if check.held else "checked: still settled at the same N"
    failed = next((r for r in check.at_max or [] if not fits(r)), None)
    if failed is not None:
        return f"lowered: failed at {failed.n:,} in a check"
    return (
        f"lowered: fitted at {check.above_n:,}, past the first failing N {first_failing_n:,}, in a check: "
        "runs there pass or fail"
    )


def run_checks(
    opts: CapacityOptions, progress: CapacityProgress, on_check: Callable[[BoundaryCheck], None]
) -> list[BoundaryCheck]:
    """Re-run every stored answer of the chosen variants and budgets at its boundary, and store
    the answer the evidence gives afterwards. A capacity measured near a cap, where runtimes
    slow down and GCs react, is only worth quoting if it holds."""
    stored_rows = mine(opts)
    latest = latest_capacity(stored_rows)
    todo = [
        (v, b, CapacityResult.from_json(latest[(v.name, b)]))
        for b in opts.budgets
        for v in opts.campaign.variants
        if (v.name, b) in latest and int(latest[(v.name, b)]["max_n"]) > 0
    ]
    records = [RunRecord.from_json(row) for row in opts.campaign.out.existing_rows()]
    workload = opts.campaign.workload
    pooled = evidence.gather((r for r in records if r.resolved_workload is workload), workload)
    checks = []
    with session(opts, progress, "capacity-check", busy=bool(todo)) as identity:
        for variant, budget, stored in todo:
            ids = identity(variant)
            runs = pooled.get(boundary(variant, budget, ids), [])
            history = [
                CapacityResult.from_json(r)
                for r in stored_rows
                if (r["variant"], r["budget_bytes"]) == (variant.name, budget)
            ]
            band = stored.noisy or seen_noisy(history) is not None
            check = _check(variant, budget, stored, runs, opts, ids, progress, band)
            if check.after is not None:
                opts.campaign.out.add_capacity(check.after.to_json())
            checks.append(check)
            on_check(check)
    return checks


def _check(
    variant: tasks.Variant,
    budget: int,
    stored: CapacityResult,
    runs: list[RunRecord],
    opts: CapacityOptions,
    identity: dict[str, Any],
    progress: CapacityProgress,
    band: bool,
) -> BoundaryCheck:
    known = outcomes(runs)
    # once seen noisy, a cell stays a band (band: any answer stored for it was one), even where
    # the runs of its boundary alone would not say so (its search began noisy, from an earlier
    # program's runs), and even where a later answer was stored as a point: the first check of
    # the reference probed python-threads at 1 GiB as a point and stored it so, from a band
    state = _State(budget, 0, known, noisy=band)
    found = state.found()
    # an answer at the kernel limits' ceiling, where nothing failed, is settled there
    ceiling = stored.max_n if stored.first_failing_n is None else MAX_N
    if not runs or not state.settled(ceiling) or found.max_n == 0:
        why = (
            "its runs were of another program or runtime version, or it was searched before answers "
            "were pooled: search it again (memrun capacity)"
        )
        return BoundaryCheck(variant.name, budget, stored.max_n, skipped=why)
    prober = Prober(variant, budget, opts, identity, progress, kind="capacity-check")
    prober.earlier = list(runs)
    seen: list[RunRecord] = []

    def probe(n: int) -> Probe:
        record = prober(n, stored.sleep_s)
        seen.append(record)
        return Probe(fits(record), record.result.cgroup_peak if record.result else None)

    line = cost.line(opts.history, variant.name, workload=opts.campaign.workload)
    baseline = max(0, line.at(1)) if line is not None else 0
    rechecked = recheck(probe, found, budget, known, baseline=baseline, ceiling=ceiling)
    count = len(rechecked.at_max)
    check = BoundaryCheck(
        variant.name,
        budget,
        found.max_n,
        rechecked.above_n,
        stored.sleep_s,
        at_max=seen[:count],
        above=seen[count],
        noisy=found.noisy,
    )
    after = rechecked.found
    check.after = answer(variant, budget, after, [*runs, *seen], seen, identity)
    check.after.why = _why(check, found.first_failing_n)
    check.after.prediction = stored.prediction
    check.after.predicted_n = stored.predicted_n
    return check
