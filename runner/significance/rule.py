"""The rule `memrun compare` applies to one cell: when is OTHER really larger or smaller than BASE?

Three tests, all of which must pass, because each stops a different false alarm:

- evidence that the runs differ beyond chance: the exact Mann-Whitney U test at p < alpha (0.002,
  as asv) where the sample sizes can reach that p at all (7 runs a side, or 6 and 7); with fewer,
  the 99 % confidence intervals of the two means must lie apart (2 or more runs a side); with a
  single run on a side there is no evidence of any kind, and the cell says so ("too few runs")
  instead of letting a threshold alone decide, which is how one-run sweeps called noise a change;
- a ratio factor: the medians differ by more than the threshold (5 %), so a real but tiny change
  does not fail a CI job;
- an absolute floor: the medians differ by more than a few hundred KiB (512 KiB), since memory
  figures of a small process wobble by that much between runs (up to 252 KiB between 5 runs of
  rust-tokio at N=1 here) and tools read the same process 100-250 KiB apart; on a 2 MB figure that
  wobble is more than 5 %.

A cell that passes the factor and the floor but has no evidence is "too few runs", never a
verdict, and fails nothing unless the user asks (`compare --strict`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from runner.significance import mannwhitney
from runner.significance.interval import mean_interval
from runner.units import KIB

LARGER, SMALLER, SAME, UNDECIDED = "larger", "smaller", "not significant", "too few runs"
RANK, INTERVALS, NO_TEST = "rank test", "99 % intervals", "none"
DEFAULT_FLOOR = 512 * KIB


def _percent(x: float) -> str:
    return f"{x * 100:g} %"


def _kib(x: float) -> str:
    return f"{x / KIB:,.0f} KiB"


def _runs(m: int, n: int) -> str:
    if m == n:
        return f"{m} run{'s' if m != 1 else ''} a side"
    return f"{m} and {n} runs"


@dataclass(frozen=True)
class Rule:
    threshold: float = 0.05  # ratio factor: |OTHER / BASE - 1| must exceed it
    floor: float = DEFAULT_FLOOR  # in the metric's unit (bytes): |OTHER - BASE| (medians) must exceed it
    alpha: float = 0.002  # the rank test's p must be below it
    confidence: float = 0.99  # of each side's interval, where the rank test cannot reach alpha
    seconds: bool = False  # the metric is a time (compare --metric ready_s), its floor in seconds

    def amount(self, x: float) -> str:
        return f"{x:,.2f} s" if self.seconds else _kib(x)

    def repeats_needed(self) -> int:
        """The fewest runs a side from which the rank test can reach p < alpha."""
        k = 1
        while not mannwhitney.reachable(k, k, self.alpha):
            k += 1
        return k

    def describe(self) -> str:
        """The rule in one paragraph, printed under every comparison."""
        k = self.repeats_needed()
        worse = "slower" if self.seconds else "more memory"
        return (
            "Significant only when all three hold: (1) the runs differ beyond chance: the exact "
            f"Mann-Whitney U test gives p < {self.alpha:g} where the run counts can reach that p "
            f"(from {k} runs a side), else the {_percent(self.confidence)} confidence intervals "
            "of the two means lie apart (from 2 runs a side); (2) the medians differ by more than "
            f"{_percent(self.threshold)}; (3) and by more than {self.amount(self.floor)}, the wobble of "
            f"a small figure between runs. Then *larger* ({worse}: worse) or *smaller* "
            "(better). A change past (2) and (3) that the runs cannot test, one run on a side, is "
            f"*{UNDECIDED}*: --repeat {k} would decide it."
        )


@dataclass(frozen=True)
class Evidence:
    """What decided one cell, printed beside it: n, p, ratio and the test used."""

    n_base: int
    n_other: int
    ratio: float
    difference: float  # median OTHER - median BASE, in the metric's unit
    p: float  # the rank test's two-sided p (shown even where it cannot reach alpha)
    test: str  # RANK, INTERVALS or NO_TEST: the test that counted
    intervals: tuple[tuple[float, float], tuple[float, float]] | None
    verdict: str
    why: str

    @property
    def significant(self) -> bool:
        return self.verdict in (LARGER, SMALLER)


def _apart(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[1] < b[0] or b[1] < a[0]


def judge(base: Sequence[float], other: Sequence[float], rule: Rule | None = None) -> Evidence:
    """Judge one cell from each side's valid runs (at least one each; ValueError otherwise)."""
    rule = rule or Rule()
    m, n = len(base), len(other)
    if not m or not n:
        raise ValueError("each side needs at least one run")
    mb, mo = statistics.median(base), statistics.median(other)
    ratio = mo / mb if mb > 0 else math.inf
    difference = mo - mb
    p = mannwhitney.p_value(other, base)
    intervals = None
    if m >= 2 and n >= 2:
        ib, io = mean_interval(base, rule.confidence), mean_interval(other, rule.confidence)
        assert ib is not None and io is not None
        intervals = (ib, io)
    if mannwhitney.reachable(m, n, rule.alpha):
        test, shown = RANK, p < rule.alpha
        said = f"p {p:.2g} {'<' if shown else '≥'} {rule.alpha:g}"
    elif intervals is not None:
        test, shown = INTERVALS, _apart(*intervals)
        said = f"{_percent(rule.confidence)} intervals {'apart' if shown else 'overlap'}"
    else:
        test, shown, said = NO_TEST, False, ""

    def verdict(word: str, why: str) -> Evidence:
        return Evidence(m, n, ratio, difference, p, test, intervals, word, why)

    if abs(ratio - 1) <= rule.threshold:
        return verdict(SAME, f"within {_percent(rule.threshold)}")
    if abs(difference) <= rule.floor:
        return verdict(SAME, f"{rule.amount(abs(difference))} is within the {rule.amount(rule.floor)} floor")
    if test == NO_TEST:
        k = rule.repeats_needed()
        return verdict(
            UNDECIDED, f"{_runs(m, n)} cannot show a {_percent(rule.threshold)} change; --repeat {k} would"
        )
    if not shown:
        return verdict(SAME, said)
    return verdict(LARGER if ratio > 1 else SMALLER, said)
