"""Why a run got only as far as it did, read from its timeline rather than from what it printed.

A program's last words name a limit only when the runtime reports one. The timeline (threads,
memory and CPU time every 50 ms) shows what happened whatever it printed: the thread count
stopped rising and held (a plateau: at a limit, named with limits.predict.thread_capacities, or
below every limit, when the program itself stopped), or it kept rising ever more slowly (a
collapse of the creation rate, with the share of CPU time the kernel took meanwhile).

Only the time before any task could have ended is used to measure creation: every task sleeps
`sleep_s` seconds, so until then the thread count rises exactly as threads are created; after it,
threads that end hide new ones. Nothing here names a runtime.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from runner.limits.host import NEAR, Limits
from runner.limits.predict import thread_capacities
from runner.measure.result import RunResult, Sample

MIN_RISE = 100  # threads above the program's own: fewer, and there is no thread story to tell
COLLAPSE = 3.0  # the late creation rate at most 1/COLLAPSE of the early peak: a collapse
MIN_CREATING_S = 1.0  # a rise shorter than this has too few samples to speak of a rate changing
PLATEAU_S = 1.0  # no new thread for this long (or a limit reached): creation stopped
LATE_SHARE = 0.25  # the late rate is measured over this last share of the creating period
WINDOWS = 10  # the creating period is cut into about this many windows to find the peak rate

STALL_S = 10.0  # threads alive this long after every sleep ended, none of them ending: a stall
STALL_FALL = 0.01  # "none ending": the count fell by at most this share over that time

Kind = Literal["limit", "plateau", "slowdown", "stall"]


@dataclass(frozen=True)
class Diagnosis:
    """What the timeline shows, as one clause for a verdict's reason and the figures behind it."""

    kind: Kind
    text: str  # e.g. "thread creation fell from 4,300/s to 820/s past 12k threads; 65 % of CPU in the kernel"
    threads: int  # threads alive where it matters: at the limit or plateau, or where creation fell
    at_s: float  # seconds since fork of that moment
    limit: str | None = None  # limits key (thread_capacities) the count stopped at
    capacity: int | None = None  # how many threads that limit allows
    peak_rate: float | None = None  # threads created per second (of wall or CPU time: text), early
    late_rate: float | None = None  # and late
    kernel_share: float | None = None  # system CPU / all CPU over the slow part (or the whole run)
    cpu_busy: float | None = None  # CPUs busy on average over the slow part
    cause: str | None = None  # what the slowdown is put down to ("futex-hash"), when known


def rounded(value: float) -> str:
    """A rate for people: two significant figures (4,270 -> "4,300"), whole numbers."""
    if value <= 0:
        return "0"
    digits = max(0, math.floor(math.log10(value)) - 1)
    return f"{round(value, -digits):,.0f}"


def short_count(value: int) -> str:
    """16,369 -> "16k", 8,916 -> "8,900": where a round figure reads better than an exact one."""
    return f"{value / 1000:,.0f}k" if value >= 10_000 else rounded(value) if value >= 1000 else f"{value:,}"


def live(timeline: Sequence[Sample]) -> list[Sample]:
    """The samples taken while the program had at least one process."""
    return [s for s in timeline if s.procs > 0]


def interpolate(points: Sequence[Sample], t: float, value: Callable[[Sample], float]) -> float:
    """value() at time t, interpolated between samples (held at the first and last outside them)."""
    i = bisect.bisect_right([p.t for p in points], t)
    if i == 0:
        return float(value(points[0]))
    if i == len(points):
        return float(value(points[-1]))
    a, b = points[i - 1], points[i]
    f = (t - a.t) / (b.t - a.t) if b.t > a.t else 0.0
    return value(a) + f * (value(b) - value(a))


def _count_at(points: Sequence[Sample], t: float) -> float:
    """Threads at time t, interpolated between samples."""
    return interpolate(points, t, lambda p: p.threads)


def net_rates(timeline: Sequence[Sample], window_s: float) -> list[tuple[float, float]]:
    """(mid time, threads started minus ended per second) over consecutive windows of about
    window_s: the creation rate while no task has ended yet, for figures."""
    points = live(timeline)
    out = []
    i = 0
    for j in range(1, len(points)):
        if points[j].t - points[i].t >= window_s or j == len(points) - 1:
            dt = points[j].t - points[i].t
            if dt > 0:
                out.append(((points[i].t + points[j].t) / 2, (points[j].threads - points[i].threads) / dt))
            i = j
    return out


def cpu_rates(timeline: Sequence[Sample], window_s: float) -> list[tuple[float, float, float]]:
    """(mid time, CPUs busy in user code, CPUs busy in the kernel) over windows of about window_s;
    empty for timelines stored before CPU time was sampled."""
    points = [s for s in live(timeline) if s.user_s is not None and s.sys_s is not None]
    out = []
    i = 0
    for j in range(1, len(points)):
        a, b = points[i], points[j]
        if b.t - a.t >= window_s or j == len(points) - 1:
            dt = b.t - a.t
            if dt > 0:
                out.append(
                    (
                        (a.t + b.t) / 2,
                        max(0.0, (b.user_s - a.user_s) / dt),
                        max(0.0, (b.sys_s - a.sys_s) / dt),
                    )
                )
            i = j
    return out


def creation_start(points: Sequence[Sample]) -> float:
    """When threads began to rise above the program's own (the time of the sample before)."""
    base = points[0].threads
    for prev, cur in itertools.pairwise(points):
        if cur.threads > base:
            return prev.t
    return points[0].t


def _cpu_split(points: Sequence[Sample], t0: float, t1: float) -> tuple[float, float] | None:
    """(kernel share of CPU, CPUs busy) between t0 and t1, from the sampled CPU times."""
    cpu = [p for p in points if p.user_s is not None and p.sys_s is not None and t0 <= p.t <= t1]
    if len(cpu) < 2:
        return None
    a, b = cpu[0], cpu[-1]
    user, system = b.user_s - a.user_s, b.sys_s - a.sys_s  # type: ignore[operator]
    if user + system <= 0 or b.t <= a.t:
        return None
    return system / (user + system), (user + system) / (b.t - a.t)


def _near_limit(threads: int, per_task: dict, limits: Limits) -> tuple[str, int, str] | None:
    """The limit the thread count is at (closest first), as (key, capacity, how)."""
    near = [
        (threads / capacity, key, capacity, how)
        for key, (capacity, how) in thread_capacities(per_task, limits).items()
        if capacity > 0 and threads >= NEAR * capacity
    ]
    if not near:
        return None
    _, key, capacity, how = max(near)
    return key, capacity, how


def _stopped(points: Sequence[Sample], end: float, peak: int) -> tuple[float, int] | None:
    """(when, level) if the thread count reached its peak and held it until `end` (the program
    ending, or the first tasks' sleep running out) for PLATEAU_S; None if it kept rising."""
    tolerance = max(2, int(0.005 * peak))
    reached = next((p for p in points if p.threads >= peak - tolerance), None)
    if reached is None or end - reached.t < PLATEAU_S:
        return None
    held = [p.threads for p in points if reached.t <= p.t <= end]
    if max(held) - min(held) > 2 * tolerance:
        return None
    return reached.t, peak


def diagnose(
    timeline: Sequence[Sample],
    *,
    n: int,
    sleep_s: float | None,
    per_task: dict,
    limits: Limits,
    ready_s: float | None = None,
    user_s: float | None = None,
    sys_s: float | None = None,
) -> Diagnosis | None:
    """What the timeline shows about thread creation, or None when it shows nothing notable.

    First match wins: the thread count at a limit (closest first) when the program never said
    `ready`; creation stopped below every limit (a plateau); the creation rate collapsing while
    the program kept creating. ready_s: when `ready N` came (creation was over then); user_s,
    sys_s: the run's CPU totals, used when the timeline has no CPU times. A run whose tasks were
    all alive and whose threads then stopped ending (a stall) is told as that: how its threads
    were created is not why it did not end.
    """
    points = live(timeline)
    if len(points) < 3:
        return None
    if ready_s is not None and sleep_s and (stalled := stall(points, ready_s + sleep_s)) is not None:
        return _with_futex_hash(stalled, limits)
    base = points[0].threads
    start = creation_start(points)
    clean_end = start + sleep_s if sleep_s else math.inf  # until then, no task has ended
    end = min(points[-1].t, clean_end, ready_s if ready_s is not None else math.inf)
    creating = [p for p in points if start <= p.t <= end]
    peak = max((p.threads for p in creating), default=0)
    if peak - base < MIN_RISE:
        return None
    per_task = per_task or {"threads": 1}
    if ready_s is None:
        at = _near_limit(peak, per_task, limits)
        until = min(points[-1].t, clean_end)  # past it, ending tasks would hide a plateau
        stop = _stopped(creating, until, peak)
        if at is not None:
            key, capacity, how = at
            held = f", held {until - stop[0]:.1f} s" if stop else ""
            text = f"thread count stopped at {peak:,}, at {how} = {capacity:,} threads{held}"
            when = stop[0] if stop else max(creating, key=lambda p: p.threads).t
            return Diagnosis("limit", text, peak, when, key, capacity)
        if stop is not None and peak < n * int(per_task.get("threads", 1) or 1):
            when, level = stop
            text = (
                f"thread creation stopped at {level:,} threads {when:.1f} s in, "
                f"nothing new for {until - when:.1f} s, below every limit read here"
            )
            return Diagnosis("plateau", text, level, when)
    slow = _slowdown(creating, points, start, end, user_s, sys_s)
    return _with_futex_hash(slow, limits) if slow is not None else None


KERNEL_BOUND = 0.5  # a slowdown with at least this share of CPU in the kernel is the kernel's doing


def _with_futex_hash(slow: Diagnosis, limits: Limits) -> Diagnosis:
    """A kernel-bound slowdown on a kernel whose per-process futex hash is small: name it, since
    every thread parked in a futex wait lengthens the chains each wake walks (limits.host)."""
    buckets = limits.get("futex_hash_buckets")
    if not isinstance(buckets, int) or slow.kernel_share is None or slow.kernel_share < KERNEL_BOUND:
        return slow
    per_bucket = slow.threads // buckets
    if per_bucket < MIN_RISE:
        return slow
    text = (
        f"{slow.text}: the kernel gives each process a futex hash of {buckets} buckets, so with "
        f"{short_count(slow.threads)} threads parked in futex waits every wake walks ~{per_bucket:,} "
        "of them (prctl PR_FUTEX_HASH in the process enlarges it)"
    )
    return dataclasses.replace(slow, text=text, cause="futex-hash")


def diagnose_run(
    result: RunResult,
    timeline: Sequence[Sample],
    n: int,
    sleep_s: float | None,
    per_task: dict,
    limits: Limits,
) -> Diagnosis | None:
    """diagnose() for a measured run: its `ready` time and CPU totals come from the result."""
    return diagnose(
        timeline,
        n=n,
        sleep_s=sleep_s,
        per_task=per_task,
        limits=limits,
        ready_s=result.ready_s,
        user_s=result.user_s,
        sys_s=result.sys_s,
    )


def stall(points: Sequence[Sample], slept: float) -> Diagnosis | None:
    """Threads that stopped ending once every task's sleep was over (`slept`: the `ready` time
    plus the sleep, when the last task to start had slept its time): the count held within
    STALL_FALL for STALL_S or more until the run was stopped. Python's threads near 20k under a
    1 GiB cap did this at random: a thousand ended, then none for two minutes while the kernel
    used both CPUs; the runs that did end, ended in seconds."""
    after = [p for p in points if p.t >= slept]
    if len(after) < 2 or after[-1].threads < MIN_RISE:
        return None
    last = after[-1]
    held_from = last.t
    for p in reversed(after):  # back to the first sample of the final flat stretch
        if p.threads > last.threads * (1 + STALL_FALL):
            break
        held_from = p.t
    held = last.t - held_from
    if held < STALL_S:
        return None
    text = (
        f"after every sleep was over, {short_count(last.threads)} threads stayed alive without "
        f"ending for {held:.0f} s"
    )
    split = _cpu_split(points, held_from, last.t)
    if split is not None:
        text += f"; {split[0] * 100:.0f} % of CPU in the kernel, {split[1]:.1f} CPUs busy"
    return Diagnosis(
        "stall",
        text,
        last.threads,
        held_from,
        kernel_share=split[0] if split else None,
        cpu_busy=split[1] if split else None,
    )


def _cpu_at(points: Sequence[Sample], t: float) -> float | None:
    """The tree's CPU seconds (user + system) at time t, interpolated; None outside the samples
    that have CPU times."""
    cpu = [p for p in points if p.user_s is not None and p.sys_s is not None]
    if not cpu or not cpu[0].t <= t <= cpu[-1].t:
        return None
    return interpolate(cpu, t, lambda p: p.user_s + p.sys_s)  # type: ignore[operator]


Clock = Callable[[float], "float | None"]


def _collapse(
    creating: Sequence[Sample], start: float, end: float, clock: Clock, least: float
) -> tuple[float, float, float, int] | None:
    """(peak rate in the first half, late rate, when and at how many threads it fell below
    1/COLLAPSE of the peak) of threads created per unit of `clock` (wall seconds, or the tree's CPU
    seconds), or None when the late rate is not 1/COLLAPSE of the peak or less. A window over which
    `clock` advanced less than `least` has no rate."""
    period = end - start
    width = period / WINDOWS
    windows = []  # (start, threads alive at start, rate)
    t = start
    while t + width <= end + 1e-9:
        c0, c1 = clock(t), clock(t + width)
        if c0 is not None and c1 is not None and c1 - c0 >= least:
            a, b = _count_at(creating, t), _count_at(creating, t + width)
            windows.append((t, int(a), (b - a) / (c1 - c0)))
        t += width
    if len(windows) < 4:
        return None
    late_from = end - LATE_SHARE * period
    c0, c1 = clock(late_from), clock(end)
    if c0 is None or c1 is None or c1 - c0 < least:
        return None
    late_rate = (_count_at(creating, end) - _count_at(creating, late_from)) / (c1 - c0)
    early = [w for w in windows if w[0] < start + period / 2 - 1e-9]
    if not early:
        return None
    peak_at, peak_rate = max(enumerate(rate for _, _, rate in early), key=lambda x: x[1])
    if late_rate <= 0 or peak_rate < COLLAPSE * late_rate:
        return None
    # the fall comes after the peak: a window before it that was slow (a starved start) is not it
    fall_t, fall_threads = next(
        ((t, a) for t, a, rate in windows[peak_at + 1 :] if rate < peak_rate / COLLAPSE), windows[-1][:2]
    )
    return peak_rate, late_rate, fall_t, fall_threads


# A window's CPU rate needs this much CPU time in it: /proc's clock ticks are 10 ms.
MIN_WINDOW_CPU_S = 0.1


def _slowdown(
    creating: Sequence[Sample],
    points: Sequence[Sample],
    start: float,
    end: float,
    user_s: float | None,
    sys_s: float | None,
) -> Diagnosis | None:
    """The creation rate fell to 1/COLLAPSE of its early peak or less while threads kept coming:
    per second of wall time, or else per second of the tree's CPU time. The second is the cost of
    a thread, which the machine's pace does not move: a busy core beside java-threads at 20,000
    halved its early wall rate (CPU-bound then) and left its late one (serialised on the futex
    hash's locks), so the fall per wall second was 1.6-2.5x and per CPU second 3-5x."""
    period = end - start
    if period < MIN_CREATING_S or len(creating) < 8:
        return None
    per_cpu = ""
    found = _collapse(creating, start, end, lambda t: t, 0.0)
    if found is None:
        found = _collapse(creating, start, end, lambda t: _cpu_at(points, t), MIN_WINDOW_CPU_S)
        per_cpu = " of CPU time"
    if found is None:
        return None
    peak_rate, late_rate, fall_t, fall_threads = found
    split = _cpu_split(points, fall_t, end)
    whole = ""
    if split is None and user_s is not None and sys_s is not None and user_s + sys_s > 0:
        split, whole = (sys_s / (user_s + sys_s), math.nan), " (whole run)"
    text = (
        f"thread creation fell from {rounded(peak_rate)}/s to {rounded(late_rate)}/s{per_cpu} "
        f"past {short_count(fall_threads)} threads"
    )
    if split is not None:
        text += f"; {split[0] * 100:.0f} % of CPU in the kernel{whole}"
    return Diagnosis(
        "slowdown",
        text,
        fall_threads,
        fall_t,
        peak_rate=peak_rate,
        late_rate=late_rate,
        kernel_share=split[0] if split else None,
        cpu_busy=split[1] if split and not math.isnan(split[1]) else None,
    )
