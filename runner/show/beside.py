"""What ran beside a run (RunRecord.beside, written by runner.scheduling), in words for its story:
for each of its own phases (spawn, hold, end), the other runs and their phases in that window, and
which of those the scheduler's rules were there to prevent (a spawn beside another spawn or an end,
an end inside another's spawn), so a reader can ask for `--jobs 1` where a figure may have moved."""

from __future__ import annotations

from typing import Any

from runner.judge.overlap import hold_window_end
from runner.results.record import RunRecord

WORDS = {"spawn": "spawning", "hold": "holding", "end": "ending"}
CLASHES = {("spawn", "spawn"), ("spawn", "end"), ("end", "spawn")}  # (its phase, the other's)


def own_phases(record: RunRecord) -> list[tuple[str, float, float]]:
    """(phase, from, to) of the run itself, in seconds since its fork: spawn until `ready`, hold
    until its earliest wait could end, end until its exit."""
    r = record.result
    if r is None:
        return []
    if r.ready_s is None:
        return [("spawn", 0.0, r.wall_s)]
    until = hold_window_end(record.resolved_workload.holds_after_ready, r.ready_s, record.sleep_s or 0.0)
    wake = min(max(until or r.ready_s, r.ready_s), r.wall_s)
    return [("spawn", 0.0, r.ready_s), ("hold", r.ready_s, wake), ("end", wake, r.wall_s)]


def clashes(record: RunRecord) -> list[tuple[str, dict[str, Any]]]:
    """(its phase, the other run's entry) where phases met that the rules keep apart."""
    out = []
    for phase, a, b in own_phases(record):
        for e in record.beside or []:
            if (phase, e["phase"]) in CLASHES and min(b, e["to_s"]) > max(a, e["from_s"]):
                out.append((phase, e))
    return out


def _entry(e: dict[str, Any]) -> str:
    return (
        f"{e['variant']} N={e['n']:,} {WORDS.get(e['phase'], e['phase'])} {e['from_s']:.1f}–{e['to_s']:.1f} s"
    )


def warmed_line(record: RunRecord) -> list[str]:
    """What memrun touched before the fork (runner.scheduling.warm), where it touched anything."""
    w = record.warmed
    if not w:
        return []
    return [
        f"  warmed    {w['bytes'] / (1 << 20):,.0f} MiB touched and given back before its fork "
        f"({w['s']:.1f} s), so that its spawn took memory the machine had backed"
    ]


def beside_lines(record: RunRecord) -> list[str]:
    """The story's lines: nothing for rows stored before runs were scheduled."""
    if record.beside is None:
        return warmed_line(record)
    if not record.beside:
        return ["  beside    nothing: it ran alone", *warmed_line(record)]
    lines = warmed_line(record)
    for phase, a, b in own_phases(record):
        seen = [_entry(e) for e in record.beside if min(b, e["to_s"]) > max(a, e["from_s"])]
        if seen:
            lines.append(f"  beside    during its {phase} ({a:.1f}–{b:.1f} s): " + "; ".join(seen))
    for phase, e in clashes(record):
        lines.append(
            f"  clash     {e['variant']} N={e['n']:,} (run {e['run_id']}) was {WORDS.get(e['phase'])} "
            f"during its {phase}: a prediction was wrong; `memrun sweep --jobs 1` measures it alone"
        )
    return lines
