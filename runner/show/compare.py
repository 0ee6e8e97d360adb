"""`memrun compare BASE OTHER`: two results directories cell by cell, in the spirit of pyperf's
compare_to and asv's compare, so that a CI job can guard a runtime upgrade or a reader can set two
machines side by side.

Per (variant, N): both medians with their (min-max), the ratio OTHER / BASE, the evidence (runs a
side, the rank test's p, which test counted) and a verdict by runner.significance.rule: *larger*
or *smaller* only when the runs differ beyond chance, past a ratio factor and past an absolute
floor; *too few runs* when a change is past the factor and the floor but one run a side cannot
test it. The old rule (ranges apart and a threshold) called 9 of 104 cells of two sweeps of the
same code significant, because with one run a side the threshold alone decided.

Each side must be one label (one machine as it was): a median over two machines is a number
measured nowhere. What differs between the two sides is named: the machine fingerprint (with a
warning where a difference can move memory), toolchain versions and settings per cell, and the
run-to-run spread of variants whose manifests say they spread.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from runner import fingerprint
from runner.results import ResultsError, load_sweeps, workloads
from runner.results.groups import Group, groups, identity_words, version_changes
from runner.results.summary import cell_values, load_runs, summarize
from runner.show.text import (
    caption,
    cell_status,
    check_metric,
    metric_title,
    n_label,
    num,
    short,
    variant_info,
)
from runner.significance.rule import LARGER, SAME, SMALLER, UNDECIDED, Evidence, Rule, judge
from runner.tasks.manifest import SLEEP
from runner.units import MB, mb

FORMATS = ("md", "csv", "json")
LOST, GAINED, NEITHER = "no figure in OTHER", "no figure in BASE", "no figure in either"
WORSE = (LARGER, LOST)
VERDICTS = (LARGER, SMALLER, UNDECIDED, SAME, LOST, GAINED, NEITHER)
__all__ = ["GAINED", "LARGER", "LOST", "NEITHER", "SAME", "SMALLER", "UNDECIDED", "compare_dirs", "render"]


def parse_floor(text: str) -> float:
    """--floor: a size (512KiB, 1MiB, 0.5MB) or 0, in bytes."""
    from runner.inputs import parse_size

    if text.strip() in ("0", "0B", "0b"):
        return 0.0
    try:
        return float(parse_size(text))
    except ValueError as e:
        raise ValueError(f"--floor: {e}") from None


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
    versions: dict[str, str] = field(default_factory=dict)  # tool versions and --env settings
    values: tuple[float, ...] = ()  # every valid run's figure: the samples the rule tests

    @property
    def spread(self) -> float | None:
        """(max - min) / median over the valid runs; None from fewer than 2."""
        if self.valid < 2 or not self.median or self.min is None or self.max is None:
            return None
        return (self.max - self.min) / self.median

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
    evidence: Evidence | None = None  # None where a side has no figure


@dataclass
class Comparison:
    metric: str
    rule: Rule
    base: tuple[Path, Group]
    other: tuple[Path, Group]
    rows: list[Row]
    only_base: list[tuple[str, int]]
    only_other: list[tuple[str, int]]
    machine: list[fingerprint.Difference] = field(default_factory=list)
    unrecorded: list[str] = field(default_factory=list)  # fingerprint fields one side lacks
    spreads: dict[str, str] = field(default_factory=dict)  # runtime -> why its runs spread
    runtime_of: dict[str, str] = field(default_factory=dict)  # row variant (maybe tagged) -> runtime

    @property
    def threshold(self) -> float:
        return self.rule.threshold

    @property
    def worse(self) -> bool:
        """Any cell significantly larger, or measured in BASE but not in OTHER."""
        return any(r.verdict in WORSE for r in self.rows)

    @property
    def undecided(self) -> bool:
        """Any cell past the threshold and the floor that too few runs could test."""
        return any(r.verdict == UNDECIDED for r in self.rows)

    def failed(self, strict: bool = False) -> bool:
        """The exit status a CI job reads: worse, or (strict) also undecided."""
        return self.worse or (strict and self.undecided)


def _directory(path: Path) -> Path:
    return path.parent if path.is_file() else path


def _side(path: Path, name: str, workload: str = SLEEP) -> Group:
    runs, sweeps = workloads.select(load_runs([path]), load_sweeps([path]), workload)
    if runs.empty:
        raise ResultsError(f"{name} {path} holds no {workload} runs (choose another --workload)")
    found = groups(runs, sweeps)
    if len(found) > 1:
        raise ResultsError(
            f"{name} {path} holds runs of {len(found)} labels ({', '.join(g.label for g in found)}); "
            "compare needs one label (one machine as it was) per side: keep each label's sweeps in a "
            "directory of its own"
        )
    return found[0]


def _cells(group: Group, metric: str) -> dict[tuple[str, int], Side]:
    out = {}
    values = cell_values(group.runs, metric)
    for r in summarize(group.runs, metric).to_dict("records"):
        key = (str(r["variant"]), int(r["n"]))
        cell = group.runs[(group.runs["variant"] == r["variant"]) & (group.runs["n"] == r["n"])]
        valid = cell[cell["verdict"] == "valid"]
        pick = valid if len(valid) else cell
        versions = identity_words(
            next(iter(pick.get("versions", [])), None), next(iter(pick.get("env_override", [])), None)
        )
        median = num(r.get("median"))
        out[key] = Side(
            median=median,
            min=num(r.get("min")),
            max=num(r.get("max")),
            valid=int(r["valid"]),
            status="" if median is not None else cell_status(r),
            versions=versions,
            values=tuple(values.get(key, ())),
        )
    return out


def _judge(base: Side, other: Side, rule: Rule) -> tuple[float | None, str, Evidence | None]:
    if not base.values or not other.values:
        if base.values:
            return None, LOST, None
        return None, GAINED if other.values else NEITHER, None
    evidence = judge(base.values, other.values, rule)
    return evidence.ratio, evidence.verdict, evidence


def _fingerprint(group: Group) -> dict[str, Any]:
    return fingerprint.merged(fingerprint.of_sweep(s) for s in group.sweeps)


def _spreads(found: list[Group], variants: set[str]) -> dict[str, str]:
    """variant -> why its runs spread: as its sweeps recorded it, else as its manifest says now
    (results written before sweeps recorded it)."""
    out: dict[str, str] = {}
    for g in found:
        for name, info in variant_info(g.sweeps).items():
            if name in variants and info.get("spread"):
                out[name] = info["spread"]
    missing = {v for v in variants if v not in out}
    if missing:
        from runner.tasks import ManifestError, load_all

        try:
            known = load_all()
        except (ManifestError, OSError):
            known = {}
        out.update({v: known[v].spread for v in missing if v in known and known[v].spread})  # type: ignore[misc]
    return out


def compare_dirs(
    base: Path,
    other: Path,
    metric: str = "peak_rss",
    threshold: float = 0.05,
    rule: Rule | None = None,
    workload: str = SLEEP,
) -> Comparison:
    """Load both directories and compare every (variant, N) they have in common.

    rule: the significance rule (threshold is its ratio factor, when no rule is given).
    workload: only that workload's runs on each side (a cell is never compared across two).
    ResultsError (one line, for exit status 2): the same directory twice, a side that mixes
    labels or machine fingerprints, or no (variant, N) in common."""
    check_metric(metric)
    rule = rule or Rule(threshold=threshold)
    base, other = Path(base), Path(other)
    for p in (base, other):
        if not p.exists():
            raise ResultsError(f"{p}: no such file or directory")
    if os.path.samefile(_directory(base), _directory(other)):
        raise ResultsError(f"BASE and OTHER are the same directory ({base}); give two results directories")
    b, o = _side(base, "BASE", workload), _side(other, "OTHER", workload)
    bc, oc = _cells(b, metric), _cells(o, metric)
    common = [k for k in bc if k in oc]
    if not common:
        raise ResultsError(f"no (variant, N) in common between BASE {base} and OTHER {other}")
    rows = []
    for key in sorted(common, key=lambda k: (k[0], k[1])):
        ratio, verdict, evidence = _judge(bc[key], oc[key], rule)
        changes = version_changes(bc[key].versions, oc[key].versions)
        rows.append(Row(key[0], key[1], bc[key], oc[key], ratio, verdict, changes, evidence))
    fb, fo = _fingerprint(b), _fingerprint(o)
    runtime_of = {
        str(v): str(rt) for g in (b, o) for v, rt in zip(g.runs["variant"], g.runs["runtime"], strict=True)
    }
    return Comparison(
        metric=metric,
        rule=rule,
        base=(base, b),
        other=(other, o),
        rows=rows,
        only_base=sorted(k for k in bc if k not in oc),
        only_other=sorted(k for k in oc if k not in bc),
        machine=fingerprint.differences(fb, fo),
        unrecorded=fingerprint.unrecorded(fb, fo),
        spreads=_spreads([b, o], {runtime_of.get(r.variant, r.variant) for r in rows}),
        runtime_of=runtime_of,
    )


# --- output ----------------------------------------------------------------------------------------


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
        f"{metric_title(result.metric)}, MB (10^6 bytes): median over valid repeats (min–max), "
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
        for name, side in (("base", r.base), ("other", r.other)):
            rec.update({f"{name}_{k}_bytes": getattr(side, k) for k in ("median", "min", "max")})
            rec[f"{name}_valid"] = side.valid
            rec[f"{name}_spread"] = side.spread
            rec[f"{name}_status"] = side.status or None
        e = r.evidence
        rec.update(
            ratio=r.ratio,
            difference_bytes=None if e is None else e.difference,
            p=None if e is None else e.p,
            test=None if e is None else e.test,
            why=None if e is None else e.why,
            threshold=result.rule.threshold,
            floor_bytes=result.rule.floor,
            alpha=result.rule.alpha,
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
