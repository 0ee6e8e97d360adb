"""What `memrun bisect` prints: each probed version's line as it comes, and the summary of the
search (every version tried, the builds it cost, the first that changed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from runner.bisection import Outcome, Probe, another_change, built
from runner.units import KIB, MB

if TYPE_CHECKING:
    from runner.bisection.probe import Prober
    from runner.results import ResultsDir


def probe_line(p: Probe, n: int, metric: str) -> str:
    """One probed version's figure as it comes (or why it has none)."""
    if p.per_task is None:
        return f"  {p.version:<12} no figure: {p.problem}"
    runs = f"{p.runs} run{'s' if p.runs > 1 else ''}"
    spread = f", spread {p.spread:.1%}" if p.runs > 1 and p.spread is not None else ""
    return (
        f"  {p.version:<12} {p.per_task / KIB:6.3f} KiB/task at N={n:,}  "
        f"({metric} {p.at_n / MB:,.1f} MB at N={n:,}, {p.at_1 / MB:,.1f} MB at N=1; {runs}{spread})"
    )


def summary_lines(outcome: Outcome, probe: Prober, name: str, n: int, out: ResultsDir) -> list[str]:
    """The search's end: every version tried, the builds it cost, and the first that changed."""
    lines = [
        "",
        f"versions tried, in order ({name}; per-task cost at N={n:,}, change from {outcome.versions[0]}):",
    ]
    for version in dict.fromkeys(p.version for p in outcome.probes):
        last = [p for p in outcome.probes if p.version == version][-1]
        change = outcome.change(last)
        verdict = outcome.judged.get(version)
        said = "" if verdict is None else ("  changed" if verdict else "  same")
        figure = "no figure" if last.per_task is None else f"{last.per_task / KIB:.3f} KiB/task"
        delta = "" if change is None or version == outcome.versions[0] else f" ({change:+.1%})"
        lines.append(f"  {version:<12} {figure}{delta}, {last.runs} run(s) at each N{said}")
    count = built(outcome)
    lines.append(
        f"builds: {count} versions probed of {len(outcome.versions)} in the range "
        f"({len(probe.built)} built now, {len(probe.up_to_date)} already up to date); "
        f"bound ⌈log2 {len(outcome.versions)}⌉ + 2 = {outcome.bound}"
    )
    lines += _first_changed(outcome, probe, name, n)
    if outcome.note:
        lines.append(outcome.note)
    lines.append(f"runs stored in {Path(out.path)}: memrun report {out.path}")
    return lines


def _first_changed(outcome: Outcome, probe: Prober, name: str, n: int) -> list[str]:
    """The first changed version against the last that was the same, and another change later in
    the range with the command that finds it (none when nothing changed)."""
    if not outcome.first_changed:
        return []
    before = [p for p in outcome.probes if p.version == outcome.last_same][-1]
    after = [p for p in outcome.probes if p.version == outcome.first_changed][-1]
    lines = [
        f"first changed: {name} {outcome.first_changed} "
        f"({before.per_task / KIB:.3f} KiB/task at {outcome.last_same} → "
        f"{after.per_task / KIB:.3f} at {outcome.first_changed}, "
        f"{(after.per_task - before.per_task) / before.per_task:+.1%})"
    ]
    later = another_change(outcome)
    if later is not None and later.per_task is not None:
        lines.append(
            f"the range holds another change: {later.version} costs {later.per_task / KIB:.3f} KiB/task, "
            f"{(later.per_task - after.per_task) / after.per_task:+.1%} from {outcome.first_changed}; "
            f"`memrun bisect {probe.variant.name} {name} {outcome.first_changed}..{outcome.versions[-1]} "
            f"--n {n}` finds the next"
        )
    return lines
