"""Everything a capacity search needs before its first probe, as the sweep's prepare(): the stored
runs it learns from, the variants that have the workload, and a build of each, with one line for
every variant left out and why (never one left out without a word)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from runner import tasks
from runner.capacity.probes import CapacityOptions
from runner.results import ResultsDir, RunRecord, load_records
from runner.workload import Workload


class BudgetError(ValueError):
    """A --memory value that no search can use; the message says why, in one line."""


def budgets(text: str) -> list[int]:
    """--memory 256MiB,1GiB: the budgets in bytes, ascending, once each; refused where no run can be
    capped (an answer found without a cap would be false) or a budget is more than the machine can
    spare (a capacity run that large could take the host down)."""
    from runner.inputs import parse_size
    from runner.limits.host import default_memory_cap
    from runner.measure import cgroups

    try:
        found = [parse_size(t) for t in text.split(",")]
    except ValueError as e:
        raise BudgetError(f"--memory: {e}") from None
    if len(set(found)) < len(found):
        raise BudgetError(f"--memory: a budget is given more than once in {text!r}")
    if problem := cgroups.cap_problem():
        raise BudgetError(f"capacity needs a memory cap on every probe, and none can be set here: {problem}")
    spare = default_memory_cap()
    if spare is not None and max(found) > spare:
        raise BudgetError(
            f"--memory: {max(found):,} bytes is more than this machine can spare ({spare:,} bytes: "
            "MemAvailable minus a reserve); a capacity run that large could take the host down"
        )
    return sorted(found)


def history(out: ResultsDir, dirs: Sequence[str], workload: Workload) -> list[RunRecord]:
    """The runs of this workload stored in the history directories (default: OUT itself), which a
    search learns its start and its sleeps from. ResultsError when OUT is not writable or a file
    cannot be read."""
    out.check_writable()
    past = [p for p in map(Path, dirs or (str(out.path),)) if (p / "runs.jsonl").exists()]
    return [r for _, r in load_records(past) if r.resolved_workload is workload] if past else []


def with_workload(
    variants: Sequence[tasks.Variant], workload: Workload, log: Callable[[str], None]
) -> list[tasks.Variant]:
    """The variants as they run the workload; those whose manifest lacks it are named and left out."""
    for v in variants:
        if not v.runs(workload):
            log(f"{v.name}: not searched, no {workload.name} workload in its manifest")
    return [v.under(workload) for v in variants if v.runs(workload)]


def prepare(opts: CapacityOptions, log: Callable[[str], None]) -> CapacityOptions:
    """Build every usable variant; the options with those that can run, and a line on why each
    other cannot."""
    variants = opts.campaign.variants
    failed = tasks.build_all([v for v in variants if tasks.readiness(v).usable], log=log)
    for v in variants:
        if not (r := tasks.readiness(v)).usable:
            log(f"{v.name}: not searched, not usable here: {'; '.join(r.problems)} (memrun doctor {v.name})")
        elif v.folder.name in failed:
            log(f"{v.name}: not searched, its build failed (memrun build {v.name})")
    kept = [v for v in variants if tasks.readiness(v).usable and v.folder.name not in failed]
    return replace(opts, campaign=replace(opts.campaign, variants=kept))
