"""The capacity searches and checks of stored answers, as the docs' blocks quote them (`memrun
derive checks` and `memrun derive searches`): read back from the answers, sessions and runs of
one label alone (runner.derive.answers.of_label), never from a search run again."""

from __future__ import annotations

from runner.derive.answers import of_label
from runner.workload import Workload


def checks(selection: str, workload: Workload) -> str:
    """Every check round of the capacity answers in selection (DIR[:LABEL]), as a Markdown table
    ending in a newline: the hold rates of points and bands (a cell once stored as a band counts
    as one in every check) and each answer it lowered. AnswerError for a label that cannot be
    told or results that cannot be read."""
    from runner.analysis.checks import rounds
    from runner.show.tables.capacity import rounds_markdown

    return rounds_markdown(rounds(*of_label(selection, workload)))


def searches(selection: str, workload: Workload, last: bool = False) -> str:
    """One line per capacity search (not a check) of the answers in selection: how many answers,
    and its probes' seconds against the floor its answers need; last: only the latest search's,
    without its id (for a sentence). AnswerError as for checks."""
    from runner.show.tables.capacity import cost_total

    capacity, sessions, _ = of_label(selection, workload)
    kinds = {str(s["sweep_id"]): s for s in sessions}
    lines = []
    for cid in sorted({str(r.get("capacity_id")) for r in capacity}):
        if kinds.get(cid, {}).get("kind") == "capacity":
            mine = [r for r in capacity if str(r.get("capacity_id")) == cid]
            lines.append(f"- **{cid}**: {len(mine)} answers; {cost_total(mine)}")
    if last and lines:
        lines = [lines[-1].split(": ", 1)[1]]
    return "\n".join(lines) if lines else "No search of these answers is stored."
