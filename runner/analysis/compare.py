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

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner import fingerprint
from runner.analysis.values import cell_status, check_metric, num, short, variant_info
from runner.results import ResultsError, load_sweeps, workloads
from runner.results.groups import Group, groups, identity_words, version_changes
from runner.results.record import TIME_METRICS
from runner.results.summary import cell_values, load_runs, summarize, sweep_runs
from runner.significance.rule import DEFAULT_FLOOR, LARGER, SAME, SMALLER, UNDECIDED, Evidence, Rule, judge
from runner.units import MB, mb
from runner.workload import Workload, get

LOST, GAINED, NEITHER = "no figure in OTHER", "no figure in BASE", "no figure in either"
WORSE = (LARGER, LOST)
VERDICTS = (LARGER, SMALLER, UNDECIDED, SAME, LOST, GAINED, NEITHER)


def parse_floor(text: str, seconds: bool = False) -> float:
    """--floor: a size (512KiB, 1MiB, 0.5MB) or 0, in bytes; for a time metric, seconds (0.1, 0.1s)."""
    from runner.inputs import parse_size

    if seconds:
        try:
            value = float(text.strip().removesuffix("s"))
        except ValueError:
            raise ValueError(f"--floor: not seconds: {text!r} (e.g. 0.1s)") from None
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"--floor: {text!r} must be 0 or more seconds")
        return value
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


def rule_of(metric: str, threshold: str, floor: str | None) -> Rule:
    """The rule `memrun compare` judges by, from --threshold and --floor as typed; the floor left
    out is 512 KiB for a memory figure (a small process wobbles by a few hundred KiB between runs)
    and none for seconds. ValueError naming the option that cannot be read."""
    seconds = metric in TIME_METRICS
    limit = parse_threshold(threshold)
    return Rule(
        threshold=limit, floor=parse_floor(floor or ("0" if seconds else "512KiB"), seconds), seconds=seconds
    )


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
    seconds: bool = False  # a time (TIME_METRICS), not bytes

    @property
    def spread(self) -> float | None:
        """(max - min) / median over the valid runs; None from fewer than 2."""
        if self.valid < 2 or not self.median or self.min is None or self.max is None:
            return None
        return (self.max - self.min) / self.median

    def text(self) -> str:
        if self.median is None:
            return f"*{short(self.status, 60)}*"
        if self.seconds:
            spread = f" ({self.min:,.2f}–{self.max:,.2f})" if self.valid > 1 else ""
            return f"{self.median:,.2f} s{spread}"
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


def split_side(spec: str | Path) -> tuple[Path, str | None]:
    """A side as given: DIR, or DIR:LABEL to take one label's runs from a directory of several.
    A path that exists as given is a path, even with a colon in it."""
    text = str(spec)
    if Path(text).exists() or ":" not in text:
        return Path(text), None
    where, _, label = text.partition(":")
    return Path(where), label or None


def _side(path: Path, name: str, workload: Workload, label: str | None = None) -> Group:
    """One side's runs: its sweeps' runs of the workload (capacity probes are no cells of a
    comparison), of one label (the one asked for with DIR:LABEL, or the only one there)."""
    runs, sweeps = workloads.select(load_runs([path]), load_sweeps([path]), workload)
    runs = sweep_runs(runs)
    if runs.empty:
        raise ResultsError(f"{name} {path} holds no {workload.name} runs (choose another --workload)")
    found = groups(runs, sweeps)
    labels = ", ".join(g.label for g in found)
    if label is not None:
        chosen = [g for g in found if g.label == label]
        if not chosen:
            raise ResultsError(f"{name} {path} holds no runs labelled {label!r}; its labels: {labels}")
        return chosen[0]
    if len(found) > 1:
        raise ResultsError(
            f"{name} {path} holds runs of {len(found)} labels ({labels}); compare needs one label (one "
            f"machine as it was) per side: choose one as {name} with {path}:LABEL"
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
            seconds=metric in TIME_METRICS,
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
    base: Path | str,
    other: Path | str,
    metric: str = "peak_rss",
    threshold: float = 0.05,
    rule: Rule | None = None,
    workload: Workload | None = None,
) -> Comparison:
    """Load both directories and compare every (variant, N) they have in common.

    rule: the significance rule (threshold is its ratio factor, when no rule is given).
    workload: only that workload's runs on each side (a cell is never compared across two; None:
    the default workload's).
    ResultsError (one line, for exit status 2): the same directory twice, a side that mixes
    labels or machine fingerprints, or no (variant, N) in common."""
    if metric not in TIME_METRICS:
        check_metric(metric)
    rule = rule or Rule(threshold=threshold, floor=0.0 if metric in TIME_METRICS else DEFAULT_FLOOR)
    (base, base_label), (other, other_label) = split_side(base), split_side(other)
    for p in (base, other):
        if not p.exists():
            raise ResultsError(f"{p}: no such file or directory")
    if os.path.samefile(_directory(base), _directory(other)) and base_label == other_label:
        raise ResultsError(f"BASE and OTHER are the same directory ({base}); give two results directories")
    workload = workload or get()
    b, o = _side(base, "BASE", workload, base_label), _side(other, "OTHER", workload, other_label)
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
