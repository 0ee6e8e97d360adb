"""The search for a capacity: from a guess, bracket a boundary, narrow it, and confirm its valid
side. Each valid probe says how much of the budget it used, which says where to look next.

Where a runtime passes or fails from run to run near its cap (a GC that stalls, threads slow to
end), there is no point to find: the answer is a band. Its lower edge (max_n) is valid in every
run made there, at least twice; above it lie N that passed once and failed another time. Pinning
that edge to 2 % would cost probe after probe in the very region where outcomes are random, so a
noisy search settles for NOISY_TOLERANCE and does not chase the band's upper end at all."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from runner.inputs import MAX_N

TOLERANCE = 0.02  # the search ends when the first failing N is within 2 % above the last valid one
NOISY_TOLERANCE = 0.05  # once noisy: run-to-run variation there is wider than this (the last check)
FIRST_STEP = 1.02  # the first step without a memory figure (the tolerance: a good guess costs two)
AIM = 0.99  # a step guided by memory aims this far inside the predicted boundary
FLAT_BELOW, FLAT_PEAK = 0.97, 0.99  # 3 % fewer tasks, 99 % of the memory: memory does not follow N
MAX_JUMP = 8.0  # a memory-guided step never goes further above the last valid N than this
MAX_DOWN = 2.0  # steps down without a valid probe grow by DOWN_GROWTH powers, up to halving N
DOWN_GROWTH = 3
# A failure whose cgroup peak stayed below this share of the budget was stopped by the runtime's
# own limit (a heap sized from the cap), not by the cgroup: memory says how far below it to look.
SHORT_OF_CAP = 0.97
SPARE_FROM = 1000  # from this N, a bracket a tolerance and one task wide is closed (closed())
SECANT_BELOW = 0.95  # a probe at most this share of N below gives the local memory per task


@dataclass(frozen=True)
class Probe:
    """What the search needs of a run: whether it was valid, and its peak under the cap."""

    valid: bool
    peak: int | None = None  # bytes charged to the cgroup (kernel memory included)


@dataclass(frozen=True)
class Found:
    """An answer, from every run of the boundary (runner.capacity.evidence). max_n: the largest N
    that fitted in every run made there, at least twice (three times once noisy), with no failure
    at or below it and, once noisy, at least one NOISY_TOLERANCE step below the smallest N that
    ever failed (first_failing_n). noisy: some N failed at or below one that fitted; then
    flaky_up_to is the largest N that fitted at least once, and flaky_passed / flaky_failed count
    the runs above max_n up to it. passed_at_max: how many runs fitted at max_n."""

    max_n: int
    first_failing_n: int | None
    noisy: bool = False
    flaky_up_to: int | None = None
    flaky_passed: int = 0
    flaky_failed: int = 0
    passed_at_max: int = 0


@dataclass
class _State:
    budget: int
    baseline: int
    outcomes: dict[int, list[Probe]]
    noisy: bool = False
    start: int = 0  # the guess
    fills: float | None = 1.0  # the share of the budget the start was guessed to fill (None: unknown)
    confirm: bool = True  # False: one fitting run makes an N an answer (tests of the bracketing)

    def __post_init__(self) -> None:
        self.observe()

    def add(self, n: int, probe: Probe) -> None:
        self.outcomes.setdefault(n, []).append(probe)
        self.observe()

    def observe(self) -> None:
        """Noisy once any run fitted at or above an N that failed (the same N included): from
        then on the boundary is a band, and stays one."""
        hi = self.hi
        if hi is not None and any(p.valid for n, runs in self.outcomes.items() if n >= hi for p in runs):
            self.noisy = True

    def valid(self, n: int) -> bool:
        return all(p.valid for p in self.outcomes[n])

    @property
    def runs_needed(self) -> int:
        """Fitting runs an N needs to be the answer: two, or three once noisy. Where a quarter of
        the runs pass at random above the true edge, two passes there happen in one search in 16:
        with two runs the seeded band test's lower edge held in 18 of 30 searches, with three in 22+."""
        return 1 if not self.confirm else 3 if self.noisy else 2

    def confirmed(self, n: int) -> bool:
        return self.valid(n) and len(self.outcomes[n]) >= self.runs_needed

    @property
    def hi(self) -> int | None:
        """The smallest N that ever failed."""
        failed = [n for n in self.outcomes if not self.valid(n)]
        return min(failed) if failed else None

    @property
    def top(self) -> int | None:
        """The smallest N the answer cannot reach: the first failing N, or once noisy the N just
        above one NOISY_TOLERANCE step below it (runs there failed 5 % above and passed at random,
        so the edge is held a step away). The search brackets the answer below this."""
        hi = self.hi
        if hi is None:
            return None
        return min(hi, math.floor(hi / (1 + NOISY_TOLERANCE)) + 1) if self.noisy else hi

    def _fitting(self, need: int) -> int:
        top = self.top
        return max(
            (
                n
                for n, runs in self.outcomes.items()
                if self.valid(n) and len(runs) >= need and (top is None or n < top)
            ),
            default=0,
        )

    @property
    def lo(self) -> int:
        """The largest N below top that fitted in every run made there: valid runs above a
        failure are not trusted."""
        return self._fitting(1)

    @property
    def answer(self) -> int:
        """The largest N below top that fitted in every run there, as many as runs_needed."""
        return self._fitting(self.runs_needed)

    @property
    def tolerance(self) -> float:
        return NOISY_TOLERANCE if self.noisy else TOLERANCE

    def settled(self, ceiling: int = MAX_N) -> bool:
        """Whether the evidence is an answer: the confirmed N within the tolerance below top (or
        nothing fits at all), or confirmed at the ceiling when nothing failed below it."""
        top, answer = self.top, self.answer
        if top is None:
            return answer >= ceiling
        return top <= 1 or (answer > 0 and closed(answer, top, self.tolerance))

    def found(self) -> Found:
        lo, hi = self.answer, self.hi
        passed_at_max = len(self.outcomes.get(lo, [])) if lo else 0
        if not self.noisy:
            return Found(lo, hi, passed_at_max=passed_at_max)
        passed = [n for n, runs in self.outcomes.items() if any(p.valid for p in runs)]
        above = [p for n, runs in self.outcomes.items() if n > lo for p in runs]
        return Found(
            lo,
            hi,
            noisy=True,
            flaky_up_to=max(passed, default=lo),
            flaky_passed=sum(p.valid for p in above),
            flaky_failed=sum(not p.valid for p in above),
            passed_at_max=passed_at_max,
        )

    def peak(self, n: int) -> int | None:
        return max((p.peak for p in self.outcomes.get(n, []) if p.peak), default=None)

    def peak_failed(self, n: int) -> int | None:
        return max((p.peak for p in self.outcomes.get(n, []) if not p.valid and p.peak), default=None)

    @property
    def limit(self) -> int:
        """The memory at which runs fail: the budget, or less where failures stopped short of it.
        A runtime that sizes its heap from the cap (a quarter of it, for the JVM) gives up at its
        heap's size, well below the cgroup's limit; its failing probes' peaks say where that is,
        and a line aimed at the budget would overshoot by the gap. The least such peak: a probe
        that failed still spawning may report less, which makes the line cautious, not wrong."""
        short = [
            p.peak
            for n, runs in self.outcomes.items()
            if not self.valid(n)
            for p in runs
            if not p.valid and p.peak and p.peak < SHORT_OF_CAP * self.budget
        ]
        return min(short, default=self.budget)

    def predicted(self, n: int) -> float | None:
        """Where the line from the baseline through the valid probe at n reaches the limit.
        None when memory does not follow N: a smaller valid probe (by FLAT_BELOW) used as much,
        as a heap sized from the cap does, or it already reached the memory at which others
        failed short of the cap (that heap, full and still valid), so the line would only ever
        say "full"."""
        peak = self.peak(n)
        if peak is None or n <= 1 or peak <= self.baseline:
            return None
        below = {m: self.peak(m) for m in self.outcomes if m < n and self.valid(m)}
        # a valid peak at the cap itself is the kernel reclaiming to stay under it, not a heap
        # that fills whatever it is given: it is no sign of a flat line
        if any(
            m <= FLAT_BELOW * n and p is not None and FLAT_PEAK * peak <= p < SHORT_OF_CAP * self.budget
            for m, p in below.items()
        ):
            return None
        if self.limit < self.budget and peak >= SHORT_OF_CAP * self.limit:
            return None  # already at the runtime's own limit, and valid: it says nothing more
        slope = (peak - self.baseline) / (n - 1)
        # Memory per task near n, from the nearest smaller valid probe far enough below to
        # measure it: a curve that steepens (allocators, GC headroom) is steeper there than on
        # average since N=1, and the steeper slope lands inside the boundary, not past it.
        near = [(m, p) for m, p in below.items() if p is not None and m <= SECANT_BELOW * n]
        if near:
            m, p = max(near)
            if p < peak:
                slope = max(slope, (peak - p) / (n - m))
        return n + (self.limit - peak) / slope


def search(
    probe: Callable[[int], Probe],
    start: int,
    budget: int,
    baseline: int = 0,
    ceiling: int = MAX_N,
    confirm: bool = True,
    fills: float | None = 1.0,
    noisy: bool = False,
    hint: int | None = None,
    known: dict[int, list[Probe]] | None = None,
) -> Found:
    """The largest valid N and the smallest failing N, within TOLERANCE of each other (or
    NOISY_TOLERANCE once the outcome is seen to vary from run to run, and then a step below the
    smallest failing N: Found). `known` is every stored run of the same boundary
    (runner.capacity.evidence): the answer is computed from them and this search's probes
    together (its probes are added to `known`), and the search probes only while they do not
    settle it (`--check` re-measures a settled answer). Without stored runs the first probe is
    `start`.

    Without a valid probe yet, steps down from the guess by 2 %, 6 %, 16 %, 41 %, then halves N
    (each step the cube of the last, at most MAX_DOWN; once noisy the first is 5 %), or at once
    to the failure's share of the budget when it stopped short of the cap (its runtime's own
    limit). A valid probe's peak puts the next N on the line from the baseline (the runtime at
    N=1) through it, steepened to the slope from the nearest smaller valid probe, just inside
    the memory at which runs fail (the budget, or the runtime's limit), or 2 % above when the
    line says it is full; when the line puts the boundary below an N just seen valid, or memory
    does not follow N (a GC runtime's peak sits at its heap's size whatever N is), the blind
    upward steps are taken instead: 2 %, 4 %, 8 %, 17 %, ... Inside a bracket the line's N is
    taken when it falls well inside, else the bracket is halved (in log space while wide), no
    further above a valid N with a full heap than the blind step. With confirm, the answer's
    valid N is run a second time: near a cap a runtime's peak varies from run to run, and an N
    that fits only sometimes is not its capacity; if it fails, the bracket moves below it and
    the search goes on, noisy. Only the answer is run again, noisy or not: with brackets that
    close at a tolerance of 5 %, a candidate run twice on the way up caught one failure in 15
    such runs of a reference run, one the answer's own runs would have caught at the same cost.
    A search that reaches the ceiling without a failure confirms the ceiling the same way.

    Stored knowledge of the same boundary comes in two ways. `hint` is where runs failed
    before, just above the start (an earlier answer's first failing N): once the start is valid
    it is the next probe, since a re-run's boundary seldom moves and that one probe closes the
    bracket. `noisy` says runs there were seen to pass and fail from run to run (an earlier
    search, or a re-check of its answer): the search is noisy from its first probe, so its
    answer is confirmed three times and settles to NOISY_TOLERANCE.
    """
    up, down = FIRST_STEP, FIRST_STEP
    first = max(1, min(start, ceiling))
    known = known if known is not None else {}
    state = _State(budget, baseline, known, noisy=noisy, start=first, fills=fills, confirm=confirm)
    n: int | None = None if state.outcomes else first
    while True:
        if n is None:
            if state.settled(ceiling):
                return state.found()
            if state.noisy and down == FIRST_STEP:
                down = 1 + NOISY_TOLERANCE
            lo, top = state.lo, state.top
            if top is not None and closed(lo, top, state.tolerance):
                n = lo  # the bracket is closed: its N is run again until it is confirmed, or fails
            elif top is None and lo == 0:
                n = first  # stored runs, none of them fitting or failing below the ceiling
            elif top is None and hint is not None and lo < hint <= ceiling and hint not in state.outcomes:
                n = hint  # where runs failed before: most often, this one probe closes the bracket
            elif top is None and lo >= ceiling:
                n = lo  # nothing fails below the ceiling: the answer is the ceiling, run again
            elif top is None:
                n, up = _above(state, lo, ceiling, up)
            elif lo == 0:
                n, down = _below(state, top, down), min(MAX_DOWN, down**DOWN_GROWTH)
            else:
                n, up = _inside(state, lo, top, up)
        state.add(n, probe(n))
        n = None


def _above(state: _State, lo: int, ceiling: int, step: float) -> tuple[int, float]:
    """The next N above the largest valid one, and the next blind step."""
    edge = max(lo + 1, math.ceil(lo * FIRST_STEP))
    target = state.predicted(lo)
    if target is not None and target >= lo:
        n = max(edge, math.floor(AIM * target))  # the edge: the line says it is (nearly) full
        return min(ceiling, n, math.ceil(MAX_JUMP * lo)), step
    # No line, or one that puts the boundary below an N just seen valid (a GC's heap at the cap
    # whatever N is): blind steps that grow, not a crawl of 2 % steps behind a wrong line.
    return min(ceiling, max(edge, math.ceil(lo * step))), step * step


def _below(state: _State, top: int, step: float) -> int:
    """The next N below the smallest failing one, with nothing valid yet: the blind step, or
    further down when that failure stopped short of the cap. Its peak says how much of the
    budget the runtime could use; the start was guessed to fill a share of it (all of it, on
    the sweep's line; scaled from a smaller budget, what the answer there used), so the N that
    fits is the start times the ratio of the two (never more than halving at once: the guess
    is from a line a GC runtime under a cap does not follow). Once noisy, never above top."""
    hi = state.hi or top
    n = min(top - 1, hi / step)
    peak = state.peak_failed(hi)
    guessed = state.fills * state.budget if state.fills is not None else None
    if peak is not None and peak < SHORT_OF_CAP * state.budget and guessed and guessed > state.baseline:
        share = max(0.0, peak - state.baseline) / (guessed - state.baseline)
        n = min(n, max(state.start * share, hi / MAX_DOWN))
    return max(1, min(top - 1, math.floor(n)))


def _inside(state: _State, lo: int, hi: int, step: float) -> tuple[int, float]:
    """The next N inside (lo, hi), and the next blind step: on the memory line when it lands
    well inside, else a split; but when memory does not follow N (a heap full at lo already),
    no more than the blind step above lo. Such a runtime's boundary was as often 2 % above its
    full valid N as 10 %, and a split aimed at the middle of a wide bracket fails again and
    again on the way down."""
    target = state.predicted(lo)
    if target is not None:
        n = max(math.floor(AIM * target), math.ceil(lo * (1 + state.tolerance)))
        if n <= hi - (hi - lo) // 4:
            return n, step  # on the line, or the edge above lo when the line says it is full
    split = _split(lo, hi, state.tolerance)
    if target is None and state.peak(lo) is not None:
        return min(split, max(lo + 1, math.ceil(lo * step))), step * step
    return split, step


def closed(lo: int, hi: int, tolerance: float) -> bool:
    """Whether the bracket is narrow enough: hi at most a tolerance above lo (one task at least),
    the same measure the upward steps use, so a step of exactly the tolerance closes it; and one
    task more where a task is at most a thousandth of lo, since a failure stored by an earlier
    search was a tolerance above that search's lo, and a lo one task lower must not be followed
    by a probe one task below the failure (C's threads at 1 GiB: 29,773 valid, 30,370 failed,
    then 30,369 was run)."""
    spare = 1 if lo >= SPARE_FROM else 0
    return hi - lo <= max(1, math.ceil(tolerance * lo)) + spare


def _split(lo: int, hi: int, tolerance: float) -> int:
    """The N that halves the probes still needed: the bracket counted in steps of the tolerance
    above lo, and cut so that one side is a power of two of them. A plain midpoint leaves a
    bracket of 2.1 % as often as not, which costs one more probe for 0.1 %."""
    step = 1 + tolerance
    steps = math.log(hi / lo) / math.log(step)  # how many tolerances wide the bracket is
    if steps <= 2.5:
        # One probe closes it either way up to 2 steps: failing, it is the tolerance above lo;
        # valid, hi is within the tolerance above it. Up to 2.5 it still closes it when it fails,
        # and near a boundary the N just above lo fails more often than not: cutting such a
        # bracket in the middle leaves a failure a sliver past the tolerance, one probe more.
        return min(hi - 1, lo + max(1, math.ceil(tolerance * lo)))
    # the part of the bracket nearest hi that leaves a power of two of steps below it, and at
    # least half the largest power of two in the bracket (so a sliver is never all it cuts off)
    upper = max(steps - 2 ** (math.ceil(math.log2(steps)) - 1), 2 ** math.floor(math.log2(steps / 2)))
    return min(hi - 1, max(lo + 1, math.floor(lo * step ** (steps - upper))))
