"""`memrun capacity --check`: does a stored capacity hold when its boundary is run again?"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner.capacity.probes import CapacityOptions, CapacityProgress, Prober, probe_valid
from runner.capacity.run import session
from runner.results import RunRecord, latest_capacity

CHECK_ABOVE = 1.05  # a boundary holds when max_n is valid again and this many times it is not


@dataclass
class BoundaryCheck:
    """A stored capacity re-run at its max_n and at CHECK_ABOVE times it, with the same sleep."""

    variant: str
    budget_bytes: int
    max_n: int
    above_n: int
    sleep_s: float | None
    at_max: RunRecord
    above: RunRecord

    @property
    def held(self) -> bool:
        return probe_valid(self.at_max) and not probe_valid(self.above)

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "budget_bytes": self.budget_bytes,
            "max_n": self.max_n,
            "valid_again": probe_valid(self.at_max),
            "above_n": self.above_n,
            "above_failed": not probe_valid(self.above),
            "above_code": self.above.code,
            "sleep_s": self.sleep_s,
            "held": self.held,
            "run_ids": [self.at_max.run_id, self.above.run_id],
        }


def run_checks(
    opts: CapacityOptions, progress: CapacityProgress, on_check: Callable[[BoundaryCheck], None]
) -> list[BoundaryCheck]:
    """Re-run every stored result of the chosen variants and budgets at its boundary: a capacity
    measured near a cap, where runtimes slow down and GCs react, is only worth quoting if it holds.
    The runs are stored as kind "capacity-check" and never feed a search."""
    latest = latest_capacity(opts.out.existing_capacity())
    todo = [
        (v, b, latest[(v.name, b)])
        for b in opts.budgets
        for v in opts.variants
        if (v.name, b) in latest and int(latest[(v.name, b)]["max_n"]) > 0
    ]
    checks = []
    with session(opts, progress, "capacity-check", busy=bool(todo)) as identity:
        for variant, budget, row in todo:
            prober = Prober(variant, budget, opts, identity(variant), progress, kind="capacity-check")
            max_n, sleep = int(row["max_n"]), row.get("sleep_s")
            above_n = math.ceil(CHECK_ABOVE * max_n)
            check = BoundaryCheck(
                variant.name, budget, max_n, above_n, sleep, prober(max_n, sleep), prober(above_n, sleep)
            )
            checks.append(check)
            on_check(check)
    return checks
