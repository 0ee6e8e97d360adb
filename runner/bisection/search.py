"""`memrun bisect`: the first version in a range whose per-task cost at N differs from the range's
first version by more than a threshold, by binary search over the versions the registry lists.

Why binary search and not a sweep of every release: each version probed is a build (a minute for a
crate, the download of a toolchain), and tokio alone has ~80 releases between 1.20 and 1.54. Both
ends are measured first (is there a change at all?), then the middle of what is left, so at most
⌈log2(versions)⌉ + 2 versions are built. The search itself is pure: it gets a `measure` function
(runner.bisection.probe runs real sweeps; the tests give it a fake series).

Noise: a probe whose change from the first version is near the threshold (between half and twice
it), or whose own runs spread by more than half the threshold, is measured again with more runs
before it is judged, up to MAX_REPEATS at each N; the verdict uses medians.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

MAX_REPEATS = 5
MORE = 2  # runs added at each N when a probe is ambiguous


@dataclass(frozen=True)
class Probe:
    """One version's evidence: the per-task cost at N, (M(N) - M(1)) / N, from medians over runs."""

    version: str
    per_task: float | None  # bytes per task; None when no valid run
    at_n: float | None  # median of the metric at N
    at_1: float | None  # median at N=1
    runs: int  # valid runs at N
    spread: float | None  # (max - min) / median of the runs at N
    built: bool = False  # a build ran for this probe (False: up to date, or it could not build)
    problem: str | None = None  # why there is no figure


@dataclass
class Outcome:
    """What the search saw: the versions in range, each probe in the order made, the answer."""

    versions: list[str]
    threshold: float
    probes: list[Probe] = field(default_factory=list)
    judged: dict[str, bool] = field(default_factory=dict)  # version -> changed from the first?
    first_changed: str | None = None
    last_same: str | None = None
    note: str = ""  # why there is no answer, or what limits it

    @property
    def bound(self) -> int:
        """⌈log2(versions)⌉ + 2: what the issue allows, and what the search never exceeds."""
        return math.ceil(math.log2(max(len(self.versions), 1))) + 2

    @property
    def reference(self) -> Probe | None:
        return next((p for p in self.probes if p.version == self.versions[0]), None)

    def change(self, probe: Probe) -> float | None:
        """Relative change of a probe's per-task cost from the first version's."""
        ref = self.reference
        if ref is None or ref.per_task is None or probe.per_task is None or ref.per_task <= 0:
            return None
        return (probe.per_task - ref.per_task) / ref.per_task


def _latest(outcome: Outcome, version: str) -> Probe:
    return [p for p in outcome.probes if p.version == version][-1]


def _ambiguous(outcome: Outcome, probe: Probe) -> bool:
    """Near the threshold, or its own runs spread: more runs could change the verdict."""
    t = outcome.threshold
    if probe.spread is not None and probe.spread > t / 2:
        return True
    change = outcome.change(probe)
    return change is not None and t / 2 <= abs(change) <= 2 * t


def _evidence(outcome: Outcome, version: str, measure: Callable[[str, int], Probe], repeats: int) -> Probe:
    """Measure a version, and again with more runs while its verdict is in doubt."""
    probe = measure(version, repeats)
    outcome.probes.append(probe)
    while probe.per_task is not None and probe.runs < MAX_REPEATS and _ambiguous(outcome, probe):
        probe = measure(version, min(probe.runs + MORE, MAX_REPEATS))
        outcome.probes.append(probe)
    return probe


def search(
    versions: list[str], measure: Callable[[str, int], Probe], threshold: float = 0.10, repeats: int = 1
) -> Outcome:
    """Binary search for the first version whose per-task cost differs from versions[0]'s by more
    than `threshold`. `measure(version, runs)` returns that version's evidence from `runs` runs at
    each N (the runs already made count towards them). A version without a figure is skipped:
    the search tries the nearest untried one inside the bracket, or says where the change lies."""
    outcome = Outcome(list(versions), threshold)
    if len(versions) < 2:
        outcome.note = "fewer than two versions in the range: nothing to search"
        return outcome
    first = _evidence(outcome, versions[0], measure, repeats)
    if first.per_task is None:
        outcome.note = f"{versions[0]} has no figure ({first.problem}): no reference to compare with"
        return outcome
    lo, hi = 0, len(versions) - 1
    last = _evidence(outcome, versions[hi], measure, repeats)
    if last.per_task is None:
        outcome.note = f"{versions[hi]} has no figure ({last.problem}): cannot tell whether the range changes"
        return outcome
    outcome.judged[versions[0]] = False
    outcome.judged[versions[hi]] = _changed(outcome, last)
    if not outcome.judged[versions[hi]]:
        outcome.note = (
            f"no change beyond {threshold:.0%} between {versions[0]} and {versions[hi]} "
            "(a change that was undone inside the range cannot be seen this way)"
        )
        return outcome
    skipped: set[int] = set()
    while hi - lo > 1:
        mid = _pick(lo, hi, skipped)
        if mid is None:
            outcome.note = (
                f"the change is between {versions[lo]} and {versions[hi]}; "
                "the versions between have no figure"
            )
            break
        probe = _evidence(outcome, versions[mid], measure, repeats)
        if probe.per_task is None:
            skipped.add(mid)
            continue
        outcome.judged[versions[mid]] = _changed(outcome, probe)
        if outcome.judged[versions[mid]]:
            hi = mid
        else:
            lo = mid
    if hi - lo == 1:
        outcome.first_changed, outcome.last_same = versions[hi], versions[lo]
    return outcome


def _changed(outcome: Outcome, probe: Probe) -> bool:
    change = outcome.change(probe)
    return change is not None and abs(change) > outcome.threshold


def _pick(lo: int, hi: int, skipped: set[int]) -> int | None:
    """The untried index nearest the middle of (lo, hi), or None when all between are skipped."""
    middle = (lo + hi) // 2
    inside = [i for i in range(lo + 1, hi) if i not in skipped]
    return min(inside, key=lambda i: (abs(i - middle), i)) if inside else None


def another_change(outcome: Outcome) -> Probe | None:
    """A version after the first changed one whose cost differs from the first changed one's by
    more than the threshold: the range holds more than one change (tokio 1.26.0 dropped the timer
    entries' cache padding, 1.29 aligned task cells to 128 bytes), and a search from the first
    changed version on finds the next. The nearest such version probed, or None."""
    if outcome.first_changed is None:
        return None
    first = _latest(outcome, outcome.first_changed)
    if first.per_task is None or first.per_task <= 0:
        return None
    later = [
        _latest(outcome, v)
        for v, changed in outcome.judged.items()
        if changed and key_of(outcome, v) > key_of(outcome, outcome.first_changed)
    ]
    differ = [
        p
        for p in later
        if p.per_task is not None and abs(p.per_task - first.per_task) / first.per_task > outcome.threshold
    ]
    return min(differ, key=lambda p: key_of(outcome, p.version)) if differ else None


def key_of(outcome: Outcome, version: str) -> int:
    """A version's place in the range."""
    return outcome.versions.index(version)


def built(outcome: Outcome) -> int:
    """Versions probed (each needs its own build, whether made now or found up to date)."""
    return len({p.version for p in outcome.probes})
