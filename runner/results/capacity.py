"""The typed capacity result: one (variant, budget) line of capacity.jsonl.

Written by `memrun capacity`, read back by report, plot and the HTML page. Rows written before a
field existed still load: the field takes its default (a row from before bands is a point answer
with no flaky span and no cost figure), and a field this version does not know is kept in extra.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from runner.workload import DEFAULT as DEFAULT_WORKLOAD

REQUIRED = ("variant", "budget_bytes", "max_n")


@dataclass
class CapacityResult:
    """One (variant, budget): the band of N whose runs are valid, and what the search cost.

    max_n is valid in every run made there (at least twice when confirmed) and below every
    failure; first_failing_n the smallest N that failed. When noisy, N above max_n passed in some
    runs and failed in others, up to flaky_up_to (the largest N seen valid at least once):
    flaky_passed and flaky_failed count those runs. A point answer has no flaky span."""

    variant: str
    budget_bytes: int
    max_n: int  # 0: not even one task fits
    first_failing_n: int | None = None  # None: nothing failed up to the search's ceiling
    stopped_by: str | None = None  # the first failing probe's verdict code
    stopped_reason: str | None = None
    probes: int = 0
    predicted_n: int | None = None
    prediction: str = ""  # how the search started
    capacity_id: str = ""
    finished_at: str = ""
    probe_ids: list[str] = field(default_factory=list)
    # The sleep of the valid probe at max_n: how long the N tasks were asked to stay alive. A
    # capacity holds for tasks that live that long; some runtimes grow as timers fire.
    sleep_s: float | None = None
    # The cgroup peak of that valid probe: how much of the budget max_n tasks used. A larger
    # budget's search scales its start from it (a heap sized from the cap fills the same share).
    peak_bytes: int | None = None
    workload: str = (
        DEFAULT_WORKLOAD  # what the N were: sleeping tasks or idle connections (rows before: sleep)
    )
    confirmed: bool = False  # max_n was valid in two runs
    # an N valid once failed another time, or failed below a valid one; or the stored runs of
    # this boundary showed it before the search began (its prediction says which: capacity.prior)
    noisy: bool = False
    flaky_up_to: int | None = None  # noisy: the largest N valid in at least one run
    flaky_passed: int = 0  # runs above max_n, up to flaky_up_to, that were valid
    flaky_failed: int = 0  # ... and that failed
    # What the search cost against what any search must run once the answer is known (the valid
    # run at max_n twice and the failing run at first_failing_n): seconds of probes, each run's
    # own wall time. None in rows written before the search measured it.
    cost_s: float | None = None
    floor_s: float | None = None
    # The evidence (runner.capacity.evidence): the answer is computed from every stored run of its
    # boundary, and these say from how many, how many fitted at max_n, and which program they
    # ran (a digest of its task folder). 0 / None in rows written before answers were pooled.
    evidence_runs: int = 0
    passed_at_max: int = 0
    program: str | None = None
    # Runs at max_n that fitted and were then stopped where their exit stalled (threads not
    # ending after the sleep): a capacity is a memory answer, so they count; the stall and its
    # remedy are kept to say so.
    stalled: int = 0
    stall: str | None = None
    stall_remedy: str | None = None
    # Why this row was written: "" for a search; for a check, "held in a check" or
    # "lowered: failed at 74,600 in a check" (a check never raises an answer).
    why: str = ""
    # The label of the search's probes (`capacity --label`, or LABEL@RELEASE for a guest's): answers
    # of different machines or kernels are never one answer. None in rows written before the row
    # kept it (load_capacity then takes it from the probes' runs).
    label: str | None = None
    # The workload's parameters its probes ran with (`--buffer`, `--rate`: Workload.record_fields),
    # so that an answer is never taken for a search with other values. Empty for a workload with
    # none, and in rows written before answers kept them (their searches ran with the defaults);
    # not written when empty.
    params: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # fields this version does not know

    @property
    def cost_ratio(self) -> float | None:
        """cost ÷ floor: 1.0 for a search that guessed its answer."""
        if self.cost_s is None or not self.floor_s:
            return None
        return self.cost_s / self.floor_s

    @property
    def flaky(self) -> bool:
        """Whether there is a span above max_n where runs passed and failed."""
        return self.flaky_up_to is not None and self.flaky_up_to > self.max_n

    def to_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "extra"}
        if not self.params:
            del out["params"]
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CapacityResult:
        """Read one capacity.jsonl object back; a KeyError names a missing required field."""
        fields = {f.name for f in dataclasses.fields(cls)}
        missing = [k for k in REQUIRED if k not in data]
        if missing:
            raise KeyError(", ".join(missing))
        known = {k: v for k, v in data.items() if k in fields and k != "extra"}
        extra = {k: v for k, v in data.items() if k not in fields}
        return cls(**known, extra=extra)
