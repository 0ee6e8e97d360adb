"""Run every (variant, N, repeat) cell through the measurement core: one variant's cells one after
another (runner.sweep_lane), the variants side by side as far as the scheduler's rules allow
(runner.scheduling: runs overlap only while they hold; `jobs` 1 is one run at a time, in order).

Each run is judged (runner.judge.verdict.classify) and appended to the results directory the moment it
ends, so Ctrl-C or a crash loses at most the run in progress, and `--resume` picks up the rest.
A torn last record a crash left is moved aside before anything is appended (its cell is then
missing, so --resume runs it again); a write that fails (disk full) raises ResultsWriteError with
every finished run intact.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from runner import tasks
from runner.execute import context
from runner.limits import read_limits
from runner.limits.raising import raised_limits
from runner.results import ResultsDir, RunRecord, labels
from runner.results.workloads import resolved
from runner.scheduling.scheduler import Scheduler
from runner.signals import sigterm_raises
from runner.sweep_lane import Sweeping, auto_sleep, lane
from runner.sweep_options import Cell, Progress, SweepOptions

__all__ = ["Cell", "Progress", "SweepOptions", "auto_sleep", "cells", "prepare", "run_sweep"]


def campaigns(opts: SweepOptions) -> list[SweepOptions]:
    """The sweeps these options make, in order: one per value of each of the workload's `each`
    parameters (Workload.campaigns: tick's `--period 1s,10s` is two sweeps), else the one. Where
    there are several, each writes to a folder of its own inside the results directory, named for
    its values (`period-1`, `period-10`), since a table never mixes them."""
    c = opts.campaign
    every = c.workload.campaigns(c.params)
    if len(every) == 1:
        return [replace(opts, campaign=replace(c, params=every[0]))]
    each = [p.name for p in c.workload.parameters if p.each]
    out = []
    for params in every:
        name = "-".join(
            f"{k}-{params[k]:g}" if isinstance(params[k], float) else f"{k}-{params[k]}" for k in each
        )
        out.append(replace(opts, campaign=replace(c, params=params, out=ResultsDir(c.out.path / name))))
    return out


def runnable(opts: SweepOptions) -> list[tasks.Variant]:
    """The variants as they run the sweep's workload; those whose manifest lacks it are left out
    (skipped() names them)."""
    workload = opts.campaign.workload
    return [v.under(workload) for v in opts.campaign.variants if v.runs(workload)]


def skipped(opts: SweepOptions, refuse_all: bool = False) -> list[str]:
    """Variants the sweep does not run: their manifest has no table for its workload. refuse_all:
    a ValueError when that is every variant chosen (a sweep of nothing is a mistake)."""
    workload = opts.campaign.workload.name
    names = [v.name for v in opts.campaign.variants if workload not in v.has]
    if refuse_all and names and len(names) == len(opts.campaign.variants):
        raise ValueError(
            f"no variant selected has the {workload} workload "
            f"([variant.workloads.{workload}] in its task.toml): {', '.join(names)}"
        )
    return names


def cells(opts: SweepOptions) -> list[Cell]:
    """The sweep's cells in the order they run (N, then variant, then repeat), only its shard's
    when it has one."""
    every = [Cell(v, n, r) for n in opts.ns for v in runnable(opts) for r in range(opts.repeat)]
    shard, workload = opts.shard, opts.campaign.workload
    return [c for c in every if shard is None or shard.owns(workload, c.variant.name, c.n, c.repeat)]


def _workload_rows(opts: SweepOptions, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stored rows of the sweep's workload (rows without one are sleep rows) and of its parameters'
    values (a connection's buffer size, say): others are other cells."""
    mine = opts.campaign.workload
    return [r for r in rows if resolved(r) is mine and mine.keeps(r, opts.campaign.params)]


def _repair(opts: SweepOptions, log: Callable[[str], None]) -> None:
    """Move torn last records aside (ResultsDir.repair), saying where each went, in one line."""
    for torn in opts.campaign.out.repair():
        log(
            f"moved the torn last record of {torn.path} (line {torn.line}, {torn.size} bytes) "
            f"aside to {torn.side}"
        )


def _done_keys(opts: SweepOptions) -> set[tuple[str, int, int]]:
    """The cells --resume skips: this label's (a label is one machine, or one guest kernel: a cell
    another label holds says nothing of this one), this workload's, sleep's and environment's."""
    if not opts.campaign.resume:
        return set()
    return {
        (r["variant"], int(r["n"]), int(r.get("repeat", 0)))
        for r in _workload_rows(opts, opts.campaign.out.existing_rows())
        if r.get("label") == opts.campaign.label
        and not r.get("superseded")
        and str(r.get("sleep_requested")) == str(opts.sleep)
        and (r.get("env_override") or {}) == opts.env_override
    }


def by_variant(todo: list[Cell]) -> dict[str, list[tuple[int, Cell]]]:
    """The cells to run, each with its place in the planned order, in one lane per variant: a
    variant's cells run one after another (its smaller N predict its larger)."""
    lanes: dict[str, list[tuple[int, Cell]]] = {}
    for i, cell in enumerate(todo):
        lanes.setdefault(cell.variant.name, []).append((i, cell))
    return lanes


def run_sweep(opts: SweepOptions, progress: Progress | None = None) -> dict[str, object]:
    """Run the missing cells; return the sweep's end record (also appended to sweeps.jsonl)."""
    p = progress or Progress()
    out = opts.campaign.out
    out.check_writable()
    _repair(opts, p.log)
    sweep_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    readiness = {v.name: tasks.readiness(v) for v in opts.campaign.variants}
    versions, meta = context(runnable(opts), opts.command)
    opts = replace(opts, campaign=replace(opts.campaign, label=opts.campaign.label or meta["host"]))
    c = opts.campaign
    labels.check_free(out.path, c.label, meta["fingerprint"])
    meta = {
        "sweep_id": sweep_id,
        "event": "start",
        **meta,
        "label": c.label,
        "ns": opts.ns,
        "sleep": str(opts.sleep),
        "repeat": opts.repeat,
        "raise_limits": c.raise_limits,
        "memory_cap": opts.memory_cap,
        "env_override": opts.env_override,
        "workload": c.workload.name,
        **c.workload.record_fields(c.params),
        "skipped": skipped(opts),
        "shard": str(opts.shard) if opts.shard else None,
    }
    out.add_sweep(meta)

    todo = [cell for cell in cells(opts) if cell.key not in _done_keys(opts)]
    # for does-not-fit: what this workload's runs needed at smaller N
    known = [RunRecord.from_json(r) for r in _workload_rows(opts, out.existing_rows())]
    if c.resume:
        p.log(f"resume: {len(cells(opts)) - len(todo)} cell(s) already in {out.path}, {len(todo)} to run")
    ctx = Sweeping(opts, sweep_id, readiness, versions, p, known, read_limits(), len(todo), opts.ns)
    interrupted = False
    limit_ctx: contextlib.AbstractContextManager[object] = contextlib.nullcontext()
    if c.raise_limits and todo:
        # what the variants need as they run the sweep's workload (Variant.under says which)
        needs = [v.per_task for v in runnable(opts)]
        limit_ctx = raised_limits(max(cell.n for cell in todo), needs, log=p.log, workload=c.workload)
    scheduler = Scheduler(c.jobs, on_change=p.on_schedule)
    ctx.scheduler, ctx.pending = scheduler, {name: list(cs) for name, cs in by_variant(todo).items()}
    try:
        with sigterm_raises(), limit_ctx:
            if c.raise_limits and todo:  # what the runs had: `inspect` draws these, not the defaults
                out.add_limits_raised(sweep_id, read_limits())
            scheduler.run_lanes([lane(ctx, cells) for cells in by_variant(todo).values()])
    except KeyboardInterrupt:
        interrupted = True
    end = {
        "sweep_id": sweep_id,
        "event": "end",
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "cells_run": ctx.finished,
        "cells_planned": len(todo),
        "interrupted": interrupted,
        "total_wall_s": round(time.monotonic() - ctx.t_start, 3),
        "programs_wall_s": round(ctx.program_wall, 3),
        "jobs": c.jobs,
        "reruns": ctx.reruns,
    }
    out.add_sweep(end)
    if interrupted:
        raise KeyboardInterrupt
    return end


def prepare(opts: SweepOptions, log: Callable[[str], None]) -> SweepOptions:
    """Everything before the first run, so a mistake stops the sweep before minutes of building:
    the results directory is writable (and readable, for --resume: a corrupt line stops here, with
    the files untouched), torn last records are moved aside, then every usable folder is built; a
    failed build becomes the rows of its cells, not an exception. Returns the options with the
    builds that failed (build_errors)."""
    opts.campaign.out.check_writable()
    if opts.campaign.resume:
        opts.campaign.out.existing_rows()
    _repair(opts, log)
    usable = [v for v in runnable(opts) if tasks.readiness(v).usable]
    return replace(opts, build_errors=tasks.build_all(usable, log))
