"""Capacity answers as figures for a sentence (`memrun derive value DIR[:LABEL][#K-M]
"capacity:FIELD@BUDGET"`): a stored answer's field per variant, so a page that quotes how many
tasks fit, or what a search cost, reads it from capacity.jsonl instead of copying it.

Which answer: per variant, the latest one stored at that budget for the label and workload, or,
with `#K-M` on the selection, the latest within the K-th to M-th capacity sessions of that label
(`#1-1`: what the first search answered, before its check lowered it). FIELD is a numeric field
of the answer (`max_n`, `first_failing_n`, `flaky_up_to`, `stalled`, `passed_at_max`, `cost_s`,
`floor_s`, `peak_bytes`; `probes`: how many probes the search ran) or `cost_floor`, cost_s ÷
floor_s, the figure `memrun capacity` prints for each search.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from runner.inputs import parse_size
from runner.results import load_capacity, workloads
from runner.workload import Workload

COUNTS = {"max_n", "first_failing_n", "flaky_up_to", "predicted_n", "probes", "stalled", "passed_at_max"}
COUNTS |= {"evidence_runs", "flaky_passed", "flaky_failed"}


class AnswerError(ValueError):
    """A capacity figure that cannot be given; one line saying why."""


@functools.cache
def _stored(directory: str) -> tuple[dict[str, Any], ...]:
    return tuple(load_capacity([Path(directory)]))


def warm(directory: str) -> None:
    """Read a directory's answers into this process's cache (runner.derive.query.warm)."""
    _stored(directory)


def parse(what: str) -> tuple[str, int]:
    """ "capacity:max_n@256MiB" -> ("max_n", 268435456)."""
    field, at, budget = what.removeprefix("capacity:").partition("@")
    if not at or not field:
        raise AnswerError(f"{what!r}: a capacity figure is capacity:FIELD@BUDGET (capacity:max_n@256MiB)")
    try:
        return field, parse_size(budget)
    except ValueError as e:
        raise AnswerError(f"{what!r}: {e}") from None


def _field(answer: dict[str, Any], field: str) -> float | None:
    if field == "cost_floor":
        cost, floor = answer.get("cost_s"), answer.get("floor_s")
        return float(cost) / float(floor) if cost is not None and floor else None
    if field == "probes":
        return float(len(answer.get("probe_ids") or []))
    x = answer.get(field)
    if x is not None and not isinstance(x, int | float):
        raise AnswerError(f"capacity:{field}: the answers' {field} is not a number")
    return None if x is None else float(x)


def figures(
    directory: str,
    label: str | None,
    sessions: tuple[int, int | None] | None,
    workload: Workload,
    field: str,
    budget: int,
) -> dict[str, float | None]:
    """variant -> FIELD of its latest answer at BUDGET (in the chosen capacity sessions)."""
    stored = [a for a in _stored(directory) if workloads.resolved(a) is workload]
    labels = sorted({str(a.get("label")) for a in stored})
    if label is None:
        if len(labels) > 1:
            raise AnswerError(
                f"{directory} holds answers of {len(labels)} labels ({', '.join(labels)}): DIR:LABEL"
            )
        label = labels[0] if labels else None
    mine = [a for a in stored if str(a.get("label")) == label]
    if not mine:
        raise AnswerError(f"no {workload.name} capacity answers of label {label!r} in {directory}")
    if sessions is not None:
        ids = sorted({str(a.get("capacity_id")) for a in mine})
        lo, hi = sessions
        chosen = set(ids[lo - 1 : hi if hi is not None else len(ids)])
        mine = [a for a in mine if str(a.get("capacity_id")) in chosen]
    latest: dict[str, dict[str, Any]] = {}
    for a in sorted(mine, key=lambda a: (str(a.get("finished_at")), str(a.get("capacity_id")))):
        if a.get("budget_bytes") == budget:
            latest[str(a["variant"])] = a
    if not latest:
        raise AnswerError(f"no capacity answer at {budget:,} bytes in {directory} (label {label})")
    return {v: _field(a, field) for v, a in sorted(latest.items())}


def of_label(
    selection: str, workload: Workload
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[Any]]:
    """The capacity answers, the sessions' start records and the run records of one label
    (DIR[:LABEL]) and workload, for `derive checks`
    and `derive searches`; AnswerError when the label is ambiguous or the results unreadable."""
    from runner.results import load_records, read_jsonl
    from runner.results.store import SWEEPS, ResultsError

    directory, _, label = selection.partition(":")
    path = Path(directory)
    try:
        capacity = [r for r in load_capacity([path]) if r.get("workload") == workload.name]
        labels = sorted({str(r.get("label")) for r in capacity})
        if not label and len(labels) > 1:
            raise AnswerError(
                f"{directory} holds answers of {len(labels)} labels ({', '.join(labels)}): DIR:LABEL"
            )
        label = label or (labels[0] if labels else "")
        capacity = [r for r in capacity if str(r.get("label")) == label]
        sessions = [
            s for s in read_jsonl(path / SWEEPS) if s.get("event") == "start" and s.get("label") == label
        ]
        records = [r for _, r in load_records([path]) if r.workload == workload.name and r.label == label]
    except ResultsError as e:
        raise AnswerError(str(e)) from None
    return capacity, sessions, records
