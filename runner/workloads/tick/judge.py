"""The verdict of a tick run: the program's, as for sleep, then what its own account and its
timeline show (tasks/README.md, "Tick protocol"). Which rule decides, first match:

1. the program's verdict as for a sleep program, judged with a hold that begins at `ready` (so a
   long spawn is never "spawn-outlasted-sleep"): could not start, crashed, failed, timed out;
2. no summary, or one that is not the protocol's (`no-summary`);
3. `ready` before the last task's first wake was due, P·(2 - 1/N) after the fork (the program's
   clock starts after the fork): its tasks had not all woken (`ready-before-wake`; also where the
   run ended before its hold, which an early `ready` makes it do);
4. the tree's RSS at `ready` under N·S: the states were not all resident (`state-not-resident`);
5. no whole period between `ready` and the end of the hold, or `asked` is not N·K (`no-window`);
6. valid. It *cannot keep up* (`cannot-keep-up`, a finding of a valid run, stored with the rate
   it held) when the wakes achieved fall under KEEP_UP of those asked, or the p99 lateness passes
   one period: its tasks then wake less often than asked, in effect.

Rules 3 and 4 are what memrun checks from outside; a program that lies in its summary is caught
by neither, as a sleep program that prints `ready` early is caught only by its proof's attack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runner.judge import verdict
from runner.judge.verdict import Verdict
from runner.limits.host import Limits
from runner.measure.result import RunResult, Sample
from runner.tasks.manifest import Failure
from runner.units import size
from runner.workload import Workload
from runner.workloads.tick.summary import Summary

KEEP_UP = 0.99  # a run whose wakes achieved fall under this share of those asked cannot keep up
PROTOCOL = "tasks/README.md, Tick protocol"
CODES = {
    "no-summary": "the program did not print the protocol's summary at its end",
    "ready-before-wake": "`ready N` came before the last task's first wake was due",
    "state-not-resident": "the tree's RSS at `ready` was under N times the state",
    "no-window": "no whole period between `ready` and the end of the hold",
    "cannot-keep-up": "valid: its wakes fell short of those asked, or p99 lateness passed a period",
}


@dataclass(frozen=True)
class Asked:
    """What a tick run was asked for."""

    n: int
    sleep: float  # the hold after `ready`
    state: int  # bytes per task
    period: float  # seconds


SAMPLES_AT_READY = 2  # a read of the tree can come back short (elixir-spawn at 100k: 1 MiB once)


def rss_at(timeline: Sequence[Sample], t: float) -> int | None:
    """The tree's RSS at t: the highest of the first SAMPLES_AT_READY samples at or after it, so
    that one short read (a process of the tree missed between two reads) does not decide alone;
    None where no sample is there. They span twice the sampling interval (0.1 s by default): a
    program whose tasks write their states at their next wake instead is still caught."""
    found = [s.rss for s in timeline if s.t >= t and s.procs > 0 and s.rss > 0][:SAMPLES_AT_READY]
    return max(found) if found else None


def first_wake_due(n: int, period: float) -> float:
    """Seconds after the program's start when the last task's first wake is due: P + ⌊(N-1)·P/N⌋."""
    return period * (2 - 1 / n)


def keeps_up(summary: Summary, period: float) -> tuple[bool, float | None]:
    """(whether the run kept up, its p99 lateness in s): achieved ≥ KEEP_UP of asked and p99 ≤ P."""
    p99 = summary.hist().percentile_ns(99.0)
    p99_s = None if p99 is None else p99 / 1e9
    ok = summary.achieved >= KEEP_UP * summary.asked and (p99_s is None or p99_s <= period)
    return ok, p99_s


def _ms(seconds: float | None) -> str:
    return "no wake" if seconds is None else f"{seconds * 1000:.3g} ms"


def judge(
    result: RunResult,
    summary: Summary | str,
    asked: Asked,
    per_task: dict[str, int],
    failures: Sequence[Failure],
    workload: Workload,
    limits: Limits | None = None,
) -> Verdict:
    """The run's verdict (the module docstring's rules, in order). summary: the program's, or why
    it could not be read."""
    n, p = asked.n, asked.period
    hold = max(asked.sleep, result.ready_s or 0.0)
    ran = verdict.classify(result, n, hold, per_task, limits, failures, workload)
    ready = result.ready_s or 0.0
    due = first_wake_due(n, p)
    early = None
    if result.ready_s is not None and ready < due - 0.001:
        early = Verdict(
            "invalid",
            "ready-before-wake",
            f"`ready {n}` after {ready:.3f} s, before the last task's first wake was due "
            f"({due:.3f} s after the start at the earliest): not every task had woken",
            f"print `ready N` once every task has finished its first wake ({PROTOCOL})",
        )
    if not ran.valid:  # a run that ended before its hold because `ready` came early: the cause
        return early if early is not None and ran.code == "ended-before-sleep" else ran
    if isinstance(summary, str):
        return Verdict("invalid", "no-summary", f"{summary} ({PROTOCOL})", "print the summary at the end")
    if early is not None:
        return early
    rss = rss_at(result.timeline, ready)
    if rss is not None and rss < n * asked.state:
        return Verdict(
            "invalid",
            "state-not-resident",
            f"the tree's RSS at `ready` was {size(rss)}, under the {size(n * asked.state)} of the "
            f"{n:,} states alone: they were not all allocated and written",
            f"allocate and fill each task's state before its first wake ({PROTOCOL})",
        )
    if summary.periods < 1 or summary.asked != n * summary.periods:
        return Verdict(
            "invalid",
            "no-window",
            f"the window had {summary.periods} whole period(s) and {summary.asked:,} wakes asked "
            f"(want N·K = {n:,}·K with K ≥ 1)",
            f"a --sleep of at least two periods ({2 * p:g} s)",
        )
    ok, p99 = keeps_up(summary, p)
    share = summary.achieved / summary.asked
    window = summary.periods * p
    text = (
        f"`ready {n}` after {ready:.2f} s; {summary.periods} period(s) of {p:g} s: "
        f"{summary.achieved:,} of {summary.asked:,} wakes ({share:.2%}), p99 lateness {_ms(p99)}"
    )
    if ok:
        return Verdict("valid", "ok", text, None)
    held = summary.achieved / window
    return Verdict(
        "valid",
        "cannot-keep-up",
        f"cannot keep up: held {held:,.0f} wakes/s of the {n / p:,.0f}/s asked; {text}",
        None,
    )
