"""`memrun compare BASE OTHER`: two results directories cell by cell, in the spirit of pyperf's
compare_to, so that a CI job can guard a runtime upgrade or a reader can set two machines side by side.

Per (variant, N): both medians with their (min-max), the ratio OTHER / BASE, and a verdict. A
difference is called significant only when it exceeds what the repeats themselves spread over --
the two ranges [min, max] do not overlap -- and the ratio differs from 1 by more than a threshold;
memory is a cost, so "smaller" is better and "larger" is worse. Each side must be one label (one
machine): a median over two machines is a number measured nowhere. Toolchain versions that differ
between the two sides are named beside the cell, since they are the usual cause of a change.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from runner.results import ResultsError, load_sweeps
from runner.results.groups import Group, groups, version_changes, version_words
from runner.results.summary import load_runs, summarize
from runner.show.text import caption, cell_status, check_metric, metric_title, n_label, num, short
from runner.units import MB, mb

FORMATS = ("md", "csv", "json")
LARGER, SMALLER, SAME = "larger", "smaller", "not significant"
LOST, GAINED, NEITHER = "no figure in OTHER", "no figure in BASE", "no figure in either"
WORSE = (LARGER, LOST)


def parse_threshold(text: str) -> float:
    """ "5%", "5" or "0.5 %" -> 0.05, 0.05, 0.005: a percentage, with or without its sign."""
    body = text.strip().removesuffix("%").strip()
    try:
        value = float(body)
    except ValueError:
        raise ValueError(f"--threshold: not a percentage: {text!r} (e.g. 5%)") from None
    if not math.isfinite(value) or not 0 <= value < 1000:
        raise ValueError(f"--threshold: {text!r} must be a percentage from 0 to below 1000")
    return value / 100


@dataclass(frozen=True)
class Side:
    """One directory's figure for a cell: median and range over valid repeats, or why there is none."""

    median: float | None
    min: float | None
    max: float | None
    valid: int
    status: str  # verdict: reason, when there is no figure
    versions: dict[str, str] = field(default_factory=dict)

    def text(self) -> str:
        if self.median is None:
            return f"*{short(self.status, 60)}*"
        spread = f" ({self.min / MB:,.1f}–{self.max / MB:,.1f})" if self.valid > 1 else ""
        return f"{mb(self.median)}{spread}"


@dataclass(frozen=True)
class Row:
    variant: str
    n: int
    base: Side
    other: Side
    ratio: float | None
    verdict: str
    changes: list[str]


@dataclass
class Comparison:
    metric: str
    threshold: float
    base: tuple[Path, Group]
    other: tuple[Path, Group]
    rows: list[Row]
    only_base: list[tuple[str, int]]
    only_other: list[tuple[str, int]]

    @property
    def worse(self) -> bool:
        """Any cell larger beyond the threshold and the spread, or measured in BASE but not in OTHER."""
        return any(r.verdict in WORSE for r in self.rows)


def _directory(path: Path) -> Path:
    return path.parent if path.is_file() else path


def _side(path: Path, name: str) -> Group:
    runs, sweeps = load_runs([path]), load_sweeps([path])
    found = groups(runs, sweeps)
    if len(found) > 1:
        raise ResultsError(
            f"{name} {path} holds runs of {len(found)} labels ({', '.join(g.label for g in found)}); "
            "compare needs one label per side: keep each label's sweeps in a directory of its own"
        )
    return found[0]


def _cells(group: Group, metric: str) -> dict[tuple[str, int], Side]:
    out = {}
    for r in summarize(group.runs, metric).to_dict("records"):
        cell = group.runs[(group.runs["variant"] == r["variant"]) & (group.runs["n"] == r["n"])]
        valid = cell[cell["verdict"] == "valid"]
        versions = version_words(next(iter((valid if len(valid) else cell).get("versions", [])), None))
        median = num(r.get("median"))
        out[(r["variant"], int(r["n"]))] = Side(
            median=median,
            min=num(r.get("min")),
            max=num(r.get("max")),
            valid=int(r["valid"]),
            status="" if median is not None else cell_status(r),
            versions=versions,
        )
    return out


def _verdict(base: Side, other: Side, threshold: float) -> tuple[float | None, str]:
    if base.median is None or other.median is None:
        if base.median is not None:
            return None, LOST
        return None, GAINED if other.median is not None else NEITHER
    ratio = other.median / base.median if base.median > 0 else math.inf
    assert base.min is not None and base.max is not None and other.min is not None and other.max is not None
    overlap = base.min <= other.max and other.min <= base.max
    if overlap or abs(ratio - 1) <= threshold:
        return ratio, SAME
    return ratio, LARGER if ratio > 1 else SMALLER


def compare_dirs(base: Path, other: Path, metric: str = "peak_rss", threshold: float = 0.05) -> Comparison:
    """Load both directories and compare every (variant, N) they have in common.

    ResultsError (one line, for exit status 2): the same directory twice, a side that mixes
    labels, or no (variant, N) in common."""
    check_metric(metric)
    base, other = Path(base), Path(other)
    for p in (base, other):
        if not p.exists():
            raise ResultsError(f"{p}: no such file or directory")
    if os.path.samefile(_directory(base), _directory(other)):
        raise ResultsError(f"BASE and OTHER are the same directory ({base}); give two results directories")
    b, o = _side(base, "BASE"), _side(other, "OTHER")
    bc, oc = _cells(b, metric), _cells(o, metric)
    common = [k for k in bc if k in oc]
    if not common:
        raise ResultsError(f"no (variant, N) in common between BASE {base} and OTHER {other}")
    rows = []
    for key in sorted(common, key=lambda k: (k[0], k[1])):
        ratio, verdict = _verdict(bc[key], oc[key], threshold)
        changes = version_changes(bc[key].versions, oc[key].versions)
        rows.append(Row(key[0], key[1], bc[key], oc[key], ratio, verdict, changes))
    return Comparison(
        metric=metric,
        threshold=threshold,
        base=(base, b),
        other=(other, o),
        rows=rows,
        only_base=sorted(k for k in bc if k not in oc),
        only_other=sorted(k for k in oc if k not in bc),
    )


# --- output ----------------------------------------------------------------------------------------


def _ratio(ratio: float | None) -> str:
    if ratio is None:
        return "—"
    if math.isinf(ratio):
        return "∞"
    return f"{ratio:.2f}× ({(ratio - 1) * 100:+.1f}%)"


def rule(threshold: float) -> str:
    """The significance rule, stated in every output that shows verdicts."""
    return (
        "Significant when the ranges [min, max] of the two do not overlap and the ratio OTHER / BASE "
        f"differs from 1 by more than the threshold ({threshold:.1%}); then *smaller* (less memory: "
        "better) or *larger* (worse), else *not significant*. With one run on a side, its range is "
        "that one value, so only the threshold decides. Exit status 1 when any cell is larger, or "
        "has a figure in BASE but none in OTHER."
    )


def summary_line(result: Comparison) -> str:
    counts = pd.Series([r.verdict for r in result.rows]).value_counts()
    parts = [f"{counts[v]} {v}" for v in (LARGER, SMALLER, SAME, LOST, GAINED, NEITHER) if v in counts]
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


def to_markdown(result: Comparison) -> str:
    changes = any(r.changes for r in result.rows)
    head = ["variant", "N", "BASE", "OTHER", "OTHER / BASE", "verdict"] + (["versions that differ"] * changes)
    lines = [
        f"{metric_title(result.metric)}, MB (10^6 bytes): median over valid repeats (min–max), "
        f"OTHER against BASE, threshold {result.threshold:.1%}",
        "",
        _side_line("BASE", result.base),
        _side_line("OTHER", result.other),
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for r in result.rows:
        verdict = f"**{r.verdict}**" if r.verdict in (LARGER, SMALLER) else r.verdict
        cells = [r.variant, n_label(r.n), r.base.text(), r.other.text(), _ratio(r.ratio), verdict]
        if changes:
            cells.append("; ".join(r.changes) or "—")
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines += ["", summary_line(result), "", rule(result.threshold), ""]
    return "\n".join(lines)


def records(result: Comparison) -> list[dict[str, Any]]:
    out = []
    for r in result.rows:
        rec: dict[str, Any] = {"variant": r.variant, "n": r.n, "metric": result.metric}
        for name, side in (("base", r.base), ("other", r.other)):
            data = asdict(side)
            rec.update({f"{name}_{k}_bytes": data[k] for k in ("median", "min", "max")})
            rec[f"{name}_valid"] = side.valid
            rec[f"{name}_status"] = side.status or None
        rec.update(
            ratio=r.ratio,
            threshold=result.threshold,
            verdict=r.verdict,
            significant=r.verdict in (LARGER, SMALLER),
            version_changes=r.changes,
        )
        out.append(rec)
    return out


def render(result: Comparison, fmt: str = "md") -> str:
    if fmt == "md":
        return to_markdown(result)
    if fmt == "csv":
        rows = [{**rec, "version_changes": "; ".join(rec["version_changes"])} for rec in records(result)]
        return pd.DataFrame(rows).to_csv(index=False)
    if fmt == "json":
        return json.dumps(records(result), indent=1) + "\n"
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
