"""Judging a run: valid (a figure), invalid (ran, but proves nothing) or failed, why, and what to do.
Only a run that printed `ready N` in time, exited 0 and lasted its sleep measured N tasks waiting.

The rules (runner.judge.rules) are tried most fundamental first, and the first that matches
decides; what a runtime prints when it fails lives in its manifest's failure table
(tasks/*/task.toml, `[[failure]]`): nothing here names a runtime.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from runner.judge import rules
from runner.judge.diagnose import diagnose_run
from runner.judge.overlap import timing_proves_overlap
from runner.judge.run import CODES as CODES  # re-exported: the vocabulary of verdict codes
from runner.judge.run import Verdict as Verdict
from runner.judge.run import _Run
from runner.judge.run import message_line as message_line
from runner.limits import futex
from runner.limits.host import LABELS, Limits, read_limits
from runner.measure.result import RunResult
from runner.tasks.manifest import Failure
from runner.units import size
from runner.workload import Workload, get


def _with_timeline(run: _Run, judged: Verdict) -> Verdict:
    """The cause the timeline shows (runner.judge.diagnose), added to the reason of a run without a
    figure: a timeout or a late `ready` says nothing about why. Not repeated when the reason
    already names the limit; stored rows have no timeline and are left as they are."""
    r = run.result
    found = (
        None if judged.valid else diagnose_run(r, r.timeline, run.n, run.sleep_s, run.per_task, run.limits)
    )
    if found is None or (found.limit is not None and LABELS.get(found.limit, found.limit) in judged.reason):
        return judged
    remedy = judged.remedy
    if found.cause == "futex-hash" and "--futex-hash" not in (remedy or ""):
        remedy = futex.remedy(run.n * int(run.per_task.get("threads", 1) or 1), remedy)
    return replace(judged, reason=f"{judged.reason}; {found.text}", remedy=remedy)


RULES: list[Callable[[_Run], Verdict | None]] = [
    rules.not_started,
    rules.interrupted,
    rules.exit_stalled,
    rules.capped,
    rules.fd_limit,
    rules.not_ready_in_time,
    rules.timed_out,
    rules.runtime_limit,
    rules.thread_limit,
    rules.out_of_memory,
    rules.signal,
    rules.nonzero_exit,
    rules.no_ready,
    rules.ready_mismatch,
    rules.ended_before_sleep,
    rules.spawn_outlasted_sleep,
]


def classify(
    result: RunResult,
    n: int,
    sleep_s: float,
    per_task: dict | None = None,
    limits: Limits | None = None,
    failures: Sequence[Failure] = (),
    workload: Workload | None = None,
) -> Verdict:
    """Judge one run: only a run that printed `ready N` in time and exited 0 measured N live tasks.

    The first rule that matches decides, most fundamental first (could it start, did it end, why
    did it fail), so a failure is never reported as the weaker "invalid". limits default to the
    ones in force now, which are the ones the run had unless they were changed in between.
    failures are the variant's manifest failure patterns (Variant.failures); workload is the one the
    run ran (None: the default one), which decides the descriptors its program had.
    """
    limits = read_limits() if limits is None else limits
    run = _Run(result, n, sleep_s, per_task or {}, limits, failures, workload or get(None))
    for rule in RULES:
        verdict = rule(run)
        if verdict is not None:
            return _with_timeline(run, verdict)
    return Verdict(
        "valid",
        "ok",
        f"`ready {n}` after {result.ready_s:.2f} s, within the {sleep_s:g} s sleep",
        None,
        overlap_by_timing=timing_proves_overlap(result.wall_s, sleep_s),
    )


def toolchain_missing(variant: str, problems: list[str]) -> Verdict:
    return Verdict(
        "failed",
        "toolchain-missing",
        "toolchain missing: " + "; ".join(problems),
        f"memrun doctor {variant}  (then memrun setup)",
    )


def build_failed(variant: str, error: str) -> Verdict:
    return Verdict("failed", "build-failed", error, f"memrun build {variant}")


def does_not_fit(n: int, need: str, cap: int) -> Verdict:
    """A cell not run because what it needs, estimated from earlier results, exceeds the cap."""
    return Verdict(
        "failed",
        "does-not-fit",
        f"does not fit in this machine's memory: {n:,} tasks need {need}, cap {size(cap)}",
        "run fewer tasks, or on a machine with more memory (or raise --memory-cap, at the host's risk)",
    )
