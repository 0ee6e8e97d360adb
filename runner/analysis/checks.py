"""What the stored `memrun capacity --check` sessions did, read back from the data alone: for
each answer a check re-measured, the answer it checked, the runs it made at max N and past the
first failing N, and whether it held. So the hold rates a page quotes are computed, never copied
from a terminal.

A check re-runs the answer stored before it: max N (three times for a band) and 1.05 x its first
failing N (runner.capacity.recheck). Whether that answer was a band follows the rule the checks
now keep: once any answer stored for the cell was a band, it is one (runner.capacity.prior
.seen_noisy), however the check that ran then treated it. A round is the check sessions that ran
one after another over distinct cells (one `--check` run in parts): a cell checked again starts
the next round, and so does a search in between.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from runner.capacity.evidence import fits
from runner.capacity.recheck import CHECK_ABOVE
from runner.results import RunRecord

Row = dict[str, Any]


@dataclass
class Round:
    """One `--check` over a set of answers, in one or more sessions."""

    ids: list[str] = field(default_factory=list)  # its sessions (capacity ids), in order
    checks: list[Row] = field(default_factory=list)  # per cell, as BoundaryCheck.to_json() has it
    seconds: float = 0.0  # from its first run's start to its last run's end, per session, summed


def _cell(row: Row) -> tuple[str, int]:
    return (str(row["variant"]), int(row["budget_bytes"]))


def _span(runs: list[RunRecord]) -> float:
    """Seconds from the first run's start to the last run's end."""
    times = [
        (datetime.fromisoformat(r.result.started_at), r.result.wall_s)
        for r in runs
        if r.result is not None and r.result.started_at and r.result.wall_s is not None
    ]
    if not times:
        return 0.0
    start = min(t for t, _ in times)
    return max((t - start).total_seconds() + wall for t, wall in times)


def rounds(capacity: list[Row], sessions: list[Row], records: list[RunRecord]) -> list[Round]:
    """Every check round of one label and workload's answers (capacity rows in the order stored,
    its sessions' start records, every run record), oldest first."""
    kinds = {str(s["sweep_id"]): s.get("kind") for s in sessions}
    order = sorted({str(r.get("capacity_id")) for r in capacity})
    by_session: dict[str, list[RunRecord]] = {}
    for r in records:
        if r.kind == "capacity-check":
            by_session.setdefault(r.sweep_id or "", []).append(r)
    out: list[Round] = []
    current: Round | None = None
    seen: dict[tuple[str, int], list[Row]] = {}
    for cid in order:
        rows = [r for r in capacity if str(r.get("capacity_id")) == cid]
        if kinds.get(cid) != "capacity-check":
            current = None  # a search ends a round
        else:
            cells = {_cell(r) for r in rows}
            if current is None or cells & {_cell(c) for c in current.checks}:
                current = Round()
                out.append(current)
            current.ids.append(cid)
            ran = by_session.get(cid, [])
            current.seconds += _span(ran)
            for row in rows:
                before = seen.get(_cell(row), [])
                if before:
                    current.checks.append(_checked(row, before, ran))
        for row in rows:
            seen.setdefault(_cell(row), []).append(row)
    return out


def _checked(row: Row, before: list[Row], ran: list[RunRecord]) -> Row:
    """One cell of a check, as BoundaryCheck.to_json() says it: the answer before it and the
    check's runs at its max N and just past its first failing N."""
    was = before[-1]
    band = any(r.get("noisy") for r in before)
    max_n = int(was["max_n"])
    above_n = math.ceil(CHECK_ABOVE * (was.get("first_failing_n") or max_n))
    mine = [r for r in ran if (r.variant, r.memory_cap) == _cell(row)]
    at_max = [r for r in mine if r.n == max_n]
    above = next((r for r in mine if r.n == above_n), None)
    fitted = all(fits(r) for r in at_max) and bool(at_max)
    held = fitted and (band or above is None or not fits(above))
    lowered = int(row["max_n"]) if int(row["max_n"]) != max_n else None
    return {
        "variant": row["variant"],
        "budget_bytes": row["budget_bytes"],
        "max_n": max_n,
        "runs_at_max": len(at_max),
        "fitted_at_max": sum(fits(r) for r in at_max),
        "above_n": above_n,
        "above_failed": None if above is None else not fits(above),
        "above_code": None if above is None else above.code,
        "sleep_s": was.get("sleep_s"),
        "noisy": band,
        "checked_as": "band" if len(at_max) > 1 or (was.get("noisy") and row.get("noisy")) else "point",
        "held": held,
        "lowered_to": lowered,
        "why": row.get("why"),
        "skipped": None,
    }
