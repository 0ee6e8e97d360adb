"""`memrun compare` as text: the comparison (runner.analysis.compare) as a Markdown table with its
summary, machine and spread lines, or as CSV and JSON records."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from runner.analysis.compare import (
    LARGER,
    SMALLER,
    UNDECIDED,
    VERDICTS,
    Comparison,
)
from runner.results.groups import Group
from runner.show.exports import registry
from runner.show.exports.exporter import Table, TableExporter
from runner.show.text import caption, metric_title, n_label
from runner.significance.rule import Evidence


def _ratio(ratio: float | None) -> str:
    if ratio is None:
        return "—"
    if math.isinf(ratio):
        return "∞"
    return f"{ratio:.2f}× ({(ratio - 1) * 100:+.1f}%)"


def evidence_text(e: Evidence | None) -> str:
    """n, p and why, for one cell: "n 7+7 · p 0.00058 < 0.002"."""
    if e is None:
        return "—"
    if e.why.startswith("p "):  # the rank test decided: its p is the reason
        return f"n {e.n_base}+{e.n_other} · {e.why}"
    return f"n {e.n_base}+{e.n_other} · p {e.p:.2g} · {e.why}"


EXIT = (
    " Exit status 1 when any cell is larger, or has a figure in BASE but none in OTHER "
    "(with --strict, also when a cell has too few runs)."
)


def summary_line(result: Comparison) -> str:
    counts = pd.Series([r.verdict for r in result.rows]).value_counts()
    parts = [f"{counts[v]} {v}" for v in VERDICTS if v in counts]
    ratios = [r.ratio for r in result.rows if r.ratio is not None and 0 < r.ratio < math.inf]
    if ratios:
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        parts.append(f"geometric mean of the ratios {geo:.3f}")
    line = ", ".join(parts) + "."
    for name, keys in (("BASE", result.only_base), ("OTHER", result.only_other)):
        if keys:
            by_variant: dict[str, list[str]] = {}
            for v, n in keys:
                by_variant.setdefault(v, []).append(n_label(n))
            line += f" Only in {name}: " + "; ".join(f"{v} {', '.join(ns)}" for v, ns in by_variant.items())
            line += "."
    return line


def _side_line(name: str, where: tuple[Path, Group]) -> str:
    path, group = where
    return f"- {name} = {path}: label {group.label}; {caption(group.runs, group.sweeps)}"


def machine_lines(result: Comparison) -> list[str]:
    """What differs between the two machines, a warning first where it can move memory."""
    if not result.machine:
        same = "Machines: no difference in the recorded fingerprint"
        if result.unrecorded:
            same += f" (not recorded on one side: {', '.join(result.unrecorded)})"
        return [same + "."]
    lines = ["Machines differ:"]
    lines += [f"- {'⚠ ' if d.field.moves else ''}{d.text()}" for d in result.machine]
    if result.unrecorded:
        lines.append(f"- not recorded on one side: {', '.join(result.unrecorded)}")
    return lines


def spread_lines(result: Comparison) -> list[str]:
    """Each spreading variant's run-to-run spread per side, instead of hiding it in a median."""
    lines = []
    for variant, why in sorted(result.spreads.items()):
        cells = []
        for r in (r for r in result.rows if result.runtime_of.get(r.variant, r.variant) == variant):
            sides = []
            for name, side in (("BASE", r.base), ("OTHER", r.other)):
                spread = side.spread
                sides.append(
                    f"{name} {spread * 100:.0f} % over {side.valid} runs"
                    if spread is not None
                    else f"{name} {side.valid} run{'s' if side.valid != 1 else ''}: unknown"
                )
            name = n_label(r.n) if r.variant == variant else f"{r.variant} {n_label(r.n)}"
            cells.append(f"{name}: {', '.join(sides)}")
        if cells:
            lines.append(f"- {variant} spreads run to run ({why}). (max − min) / median: {'; '.join(cells)}.")
    if lines:
        lines.insert(0, "Variants whose runs spread (their manifests say why):")
    return lines


def to_markdown(result: Comparison) -> str:
    changes = any(r.changes for r in result.rows)
    head = ["variant", "N", "BASE", "OTHER", "OTHER / BASE", "evidence", "verdict"]
    head += ["versions and settings that differ"] * changes
    lines = [
        f"{metric_title(result.metric)}, {'seconds' if result.rule.seconds else 'MB (10^6 bytes)'}: "
        "median over valid repeats (min–max), "
        f"OTHER against BASE, threshold {result.threshold:.1%}",
        "",
        _side_line("BASE", result.base),
        _side_line("OTHER", result.other),
        "",
        *machine_lines(result),
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for r in result.rows:
        verdict = f"**{r.verdict}**" if r.verdict in (LARGER, SMALLER) else r.verdict
        verdict = f"*{verdict}*" if r.verdict == UNDECIDED else verdict
        cells = [
            r.variant,
            n_label(r.n),
            r.base.text(),
            r.other.text(),
            _ratio(r.ratio),
            evidence_text(r.evidence),
            verdict,
        ]
        if changes:
            cells.append("; ".join(r.changes) or "—")
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines += ["", summary_line(result)]
    spreads = spread_lines(result)
    if spreads:
        lines += ["", *spreads]
    lines += ["", result.rule.describe() + EXIT, ""]
    return "\n".join(lines)


def records(result: Comparison) -> list[dict[str, Any]]:
    out = []
    for r in result.rows:
        rec: dict[str, Any] = {"variant": r.variant, "n": r.n, "metric": result.metric}
        unit = "s" if result.rule.seconds else "bytes"
        for name, side in (("base", r.base), ("other", r.other)):
            rec.update({f"{name}_{k}_{unit}": getattr(side, k) for k in ("median", "min", "max")})
            rec[f"{name}_valid"] = side.valid
            rec[f"{name}_spread"] = side.spread
            rec[f"{name}_status"] = side.status or None
        e = r.evidence
        rec.update(
            ratio=r.ratio,
            **{f"difference_{unit}": None if e is None else e.difference},
            p=None if e is None else e.p,
            test=None if e is None else e.test,
            why=None if e is None else e.why,
            threshold=result.rule.threshold,
            **{f"floor_{unit}": result.rule.floor},
            alpha=result.rule.alpha,
            verdict=r.verdict,
            significant=r.verdict in (LARGER, SMALLER),
            version_changes=r.changes,
        )
        out.append(rec)
    return out


class ComparisonTable(Table):
    """The comparison's rows: to_markdown() with its summary lines, or records() (CSV joins a
    cell's version changes with "; ")."""

    def __init__(self, result: Comparison) -> None:
        self.result = result

    def markdown(self) -> str:
        return to_markdown(self.result)

    def records(self) -> list[dict[str, Any]]:
        return records(self.result)

    def flat_records(self) -> list[dict[str, Any]]:
        return [{**rec, "version_changes": "; ".join(rec["version_changes"])} for rec in self.records()]


def render(result: Comparison, fmt: str = "md") -> str:
    """The comparison in a table format (md, csv, json)."""
    return registry.get(fmt, TableExporter).table(ComparisonTable(result))
