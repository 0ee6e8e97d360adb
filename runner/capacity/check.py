"""`memrun capacity --check`: does a stored capacity hold when its boundary is run again?

A point answer holds when max_n is valid again and 5 % past the first failing N is not. A band
(noisy) makes no claim above max_n: it holds when max_n is valid again, and its flaky_up_to is
run once more to say how often the top of the band passes."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner.capacity.probes import CapacityOptions, CapacityProgress, Prober, probe_valid
from runner.capacity.run import mine, session
from runner.results import RunRecord, latest_capacity
from runner.results.capacity import CapacityResult

CHECK_ABOVE = 1.05  # a point holds when max_n is valid again and this times first_failing_n is not


@dataclass
class BoundaryCheck:
    """A stored capacity re-run at its max_n and at CHECK_ABOVE times its first failing N, with
    the same sleep; a band's flaky_up_to too."""

    variant: str
    budget_bytes: int
    max_n: int
    above_n: int
    sleep_s: float | None
    at_max: RunRecord
    above: RunRecord
    noisy: bool = False
    flaky_up_to: int | None = None
    at_flaky: RunRecord | None = None

    @property
    def held(self) -> bool:
        if self.noisy:
            return probe_valid(self.at_max)
        return probe_valid(self.at_max) and not probe_valid(self.above)

    @property
    def flaky_passed(self) -> bool | None:
        return probe_valid(self.at_flaky) if self.at_flaky is not None else None

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
            "noisy": self.noisy,
            "flaky_up_to": self.flaky_up_to,
            "flaky_passed": self.flaky_passed,
            "held": self.held,
            "run_ids": [r.run_id for r in (self.at_max, self.above, self.at_flaky) if r is not None],
        }


def run_checks(
    opts: CapacityOptions, progress: CapacityProgress, on_check: Callable[[BoundaryCheck], None]
) -> list[BoundaryCheck]:
    """Re-run every stored result of the chosen variants and budgets at its boundary: a capacity
    measured near a cap, where runtimes slow down and GCs react, is only worth quoting if it holds.
    The runs are stored as kind "capacity-check" and never feed a search."""
    latest = latest_capacity(mine(opts))
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
            result = CapacityResult.from_json(row)
            max_n, sleep = result.max_n, result.sleep_s
            above_n = math.ceil(CHECK_ABOVE * (result.first_failing_n or max_n))
            check = BoundaryCheck(
                variant.name, budget, max_n, above_n, sleep, prober(max_n, sleep), prober(above_n, sleep)
            )
            if result.noisy:
                check.noisy = True
                if result.flaky and result.flaky_up_to is not None:
                    check.flaky_up_to = result.flaky_up_to
                    same = result.flaky_up_to == above_n  # already run once just now
                    check.at_flaky = check.above if same else prober(result.flaky_up_to, sleep)
            checks.append(check)
            on_check(check)
    return checks
