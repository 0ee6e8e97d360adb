"""What `memrun inspect` tells: the stored runs it chooses, each one's story with its figure
written beside it, or (--overlap) what proves that each valid run's waits overlapped. Stored
results are read, never a task program run. The command line parses and prints; `memrun derive`
calls the same functions for a page's story, so both print the same text."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runner.results.record import RunRecord
from runner.workload import get as get_workload

if TYPE_CHECKING:
    from runner.show.story import Case

Log = Callable[[str], None]


class InspectError(ValueError):
    """Nothing matches, or results or figures that cannot be read or written: one line saying why."""


def _load(path: Path, workload: str | None, log: Log) -> tuple[list, dict[str, dict[str, Any]]]:
    """The runs stored in path and their sweeps by id, each torn record a warning told through
    log; only one workload's (a sweep of connections is not the latest sleep sweep), unless
    workload is None (--run finds its run whatever the workload)."""
    from runner.results import ResultsError, TornRecordWarning, load_records, load_sweeps, workloads

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TornRecordWarning)
        try:
            loaded = load_records([path])
            sweeps = {str(s.get("sweep_id")): s for s in load_sweeps([path])}
        except ResultsError as e:
            raise InspectError(str(e)) from None
    for w in caught:
        log(f"warning: {w.message}")
    if workload is not None:
        loaded = [(d, r) for d, r in loaded if r.workload == workload]
        sweeps = {k: s for k, s in sweeps.items() if workloads.of(s) == workload}
    return loaded, sweeps


def _timelines(path: Path, run_ids: list) -> dict[str, Any]:
    from runner.results import ResultsError
    from runner.results.timelines import load_timelines

    try:
        return load_timelines(path, run_ids)
    except ResultsError as e:
        raise InspectError(str(e)) from None


def overlap_evidence(
    path: Path, variants: Sequence[str], n: int | None, workload: str | None, log: Log
) -> str:
    """`inspect --overlap`: one line per valid sweep run of the workload (of every workload when
    None) that matches (-r, --n) with what proves from outside that its N waits overlapped, under
    a header."""
    from runner.show.story import overlap_table

    loaded, _ = _load(path, workload, log)
    chosen = [
        r
        for _, r in loaded
        if r.kind == "sweep"
        and not r.superseded
        and (not variants or r.variant in variants)
        and (n is None or r.n == n)
    ]
    missing = [r.run_id for r in chosen if r.hold_ratio is None and r.run_id]
    lines = overlap_table(chosen, _timelines(path, missing) if missing else {})
    if not lines:
        raise InspectError(f"no valid sweep runs matching in {path}")
    return "\n".join(lines)


def _nothing(
    path: Path, loaded: list, variants: Sequence[str], n: int | None, run_id: str | None, workload: str
) -> str:
    """What is said when no run matches: a line to print when the latest sweep left nothing to
    inspect; InspectError naming what was asked otherwise."""
    if run_id:
        raise InspectError(f"no run {run_id} in {path}")
    if variants or n is not None:
        asked = [*(f"-r {v}" for v in variants), *([f"--n {n}"] if n is not None else [])]
        raise InspectError(f"no runs matching {' '.join(asked)} in {path}")
    if not loaded:
        raise InspectError(f"no {workload} runs in {path} (--workload chooses another)")
    return f"every run of the latest {workload} sweep in {path} is valid: nothing to inspect"


def stories(
    path: Path,
    variants: Sequence[str],
    n: int | None,
    run_id: str | None,
    out: Path,
    workload: str,
    log: Log,
) -> Iterator[str]:
    """The text of each chosen run (runner.show.story.choose), one piece at a time as it is made,
    each to be printed as a line: its story, after a blank line from the one before, and its load
    client's line where it had one. Each run with a timeline gets its figure (PNG and SVG) in out,
    drawn before its story, which names it. When nothing matches: one line saying so, if the
    latest sweep was all valid; else InspectError."""
    from runner import tasks
    from runner.limits import read_limits
    from runner.show.story import choose, make_case, story

    loaded, sweeps = _load(path, None if run_id else workload, log)
    chosen = choose(loaded, variants, n, run_id)
    if not chosen:
        yield _nothing(path, loaded, variants, n, run_id, workload)
        return
    known = tasks.load_all()
    records = [r for _, r in loaded]
    now = read_limits()
    timelines = _timelines(path, [r.run_id for _, r in chosen if r.run_id])
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InspectError(f"cannot write figures to {out}: {e.strerror}") from None
    for i, (directory, record) in enumerate(chosen):
        variant = known.get(record.variant)
        ran = get_workload(record.workload)  # the stored row's name, resolved once here
        if variant and variant.runs(ran) and ran is not variant.workload:
            variant = variant.under(ran)  # its per-task needs under that workload
        case = make_case(
            directory,
            record,
            timelines.get(str(record.run_id), []),
            sweeps.get(str(record.sweep_id)),
            variant.per_task if variant else {},
            [r for r in records if r.workload == record.workload],
            now,
        )
        _draw(case, record, out)
        yield ("\n" if i else "") + story(case)
        line = ran.client_line(record.n, record.client) if record.client else None
        if line is not None:
            yield line  # the workload's load client


def _draw(case: Case, record: RunRecord, out: Path) -> None:
    """The run's timeline figure into out (its paths kept on the case, for its story)."""
    from runner.show.figures.timeline import save_timeline_figure

    if not case.timeline or record.result is None:
        return
    try:
        case.figures = save_timeline_figure(
            record,
            case.timeline,
            out,
            f"{record.variant}-n{record.n}-{record.run_id}",
            per_task=case.per_task,
            limits=case.limits,
            cpus=case.cpus,
            diagnosis=case.diagnosis,
        )
    except OSError as e:
        raise InspectError(f"cannot write figures to {out}: {e.strerror}") from None
