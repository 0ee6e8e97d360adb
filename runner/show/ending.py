"""How a run ended, in a few words, for the text (runner.show.story) and the figure
(runner.show.figures.timeline) alike. Apart from the figure's module so that the text does not
import matplotlib: `memrun sweep` prints its end through the story, and matplotlib's import is
most of a sweep's start-up in a TCG guest (runner.vm)."""

from __future__ import annotations

from runner.results.record import RunRecord


def end_label(record: RunRecord) -> str:
    """How the run ended, in a few words: exit, signal, OOM kill, timeout."""
    r = record.result
    if r is None:
        return "not run"
    if r.cgroup_oom_kills:
        return f"OOM kill ({r.cgroup_oom_kills})"
    if r.timed_out:
        return "timeout (killed)"
    if r.interrupted:
        return "interrupted"
    if r.signal:
        return f"killed by {r.signal}"
    return f"exit {r.exit_code}"
