"""Stored results of older memrun versions, read as this version writes them.

Every record of `runs.jsonl`, `sweeps.jsonl` and `capacity.jsonl` carries the format it was
written in (`format`, as pyperf's files carry their version). A record without one is format 1,
from before memrun kept it. Reading a file passes each record through the steps from its format
to FORMAT, one function per step, so code past the loader meets one shape, and what an old row
lacked is said in one place instead of as a default in every reader. A record of a newer format
than this memrun knows is refused: guessing at its fields could turn a figure into another.

Timelines carry no format: a timeline belongs to its run row, whose format covers it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runner.workload import DEFAULT as DEFAULT_WORKLOAD

FORMAT = 3
KINDS = ("run", "sweep", "capacity")


class NewerFormat(ValueError):
    """A record written by a newer memrun, in a format this one cannot read."""


def _to_2(kind: str, row: dict[str, Any]) -> dict[str, Any]:
    """Format 2 names every row's workload: rows written before workloads existed are sleep rows
    (runs, capacity answers, and the start record of a sweep or capacity search)."""
    if kind != "sweep" or row.get("event") == "start":
        workload = row.get("workload")
        if not isinstance(workload, str) or not workload:
            row["workload"] = DEFAULT_WORKLOAD
    return row


def _to_3(kind: str, row: dict[str, Any]) -> dict[str, Any]:
    """Format 3 keeps every setting of a workload's runs under `params` (runner.workload.Parameter):
    the read buffer of a connection, which rows and start records kept at the top level as
    `buffer` (null where a workload had none), moves there, beside any other parameter."""
    if "buffer" in row:
        buffer = row.pop("buffer")
        if buffer is not None:
            params = row.get("params")
            row["params"] = {"buffer": buffer, **(params if isinstance(params, dict) else {})}
    return row


# format k -> the step that turns a format-k record into a format-(k + 1) one
STEPS: dict[int, Callable[[str, dict[str, Any]], dict[str, Any]]] = {1: _to_2, 2: _to_3}


def format_of(row: dict[str, Any]) -> int:
    value = row.get("format", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def upgrade(kind: str, row: dict[str, Any]) -> dict[str, Any]:
    """The record as FORMAT has it (a new dict; the given one is left alone). NewerFormat when it
    was written in a format past FORMAT."""
    if kind not in KINDS:
        raise ValueError(f"no records of kind {kind!r}: one of {', '.join(KINDS)}")
    version = format_of(row)
    if version > FORMAT:
        raise NewerFormat(
            f"written in format {version} by a newer memrun (this one reads up to {FORMAT}): upgrade memrun"
        )
    out = dict(row)
    while version < FORMAT:
        out = STEPS[version](kind, out)
        version += 1
    out["format"] = FORMAT
    return out


def stamped(row: dict[str, Any]) -> dict[str, Any]:
    """A record about to be written: in FORMAT (every writer of this version writes that shape)."""
    return {**row, "format": FORMAT}
