"""Figures the documentation quotes, computed from stored results: one value for a sentence
(`memrun derive value`) or a table of variants (`memrun derive table`).

A selection is `DIR[:LABEL][#K-M]`: the sweeps' runs of one label in a results directory (the
label may be left out where the directory holds one), optionally only its K-th to M-th sweeps in
time order (`#2-`: all but the first). Only runs that count are used: valid runs of sweeps (not
capacity probes, not an invalid run that `--sleep auto` ran again), of the workload asked for.

A quantity, per variant:
- `COLUMN@N`: the median over valid runs at N of a stored column: `peak_rss`, `cgroup_peak`,
  `cgroup_kernel` (the cgroup's kernel part, for connections while every one was held), `ready_s`,
  `client_cpu_s`, `client_connect_s`, `client_peak`, any other numeric field of the rows, or
  `COLUMN.KEY` for a key of a stored dict (`cgroup_breakdown_held.slab`); bytes are shown in MB,
  seconds in s;
- `per_task:COLUMN@N`: (M(N) - M(1)) / N in KiB, as the report's KiB per task; `per_n:COLUMN@N`
  M(N) / N in KiB, where no run at N = 1 was made (the kernel part of N threads);
- `held_rss@N`: the highest RSS of the run's timeline between `ready` and the end of its sleep
  (connections: while every connection was idle; `per_task:held_rss@N` against the same at 1);
- `runs`: how many runs count;
- `machine:FIELD`: a field of the selection's machine fingerprint (one value; `ram_bytes` in GiB).
A `{format}` after it (`per_task:peak_rss@1e4{:.1f} KiB`) sets how each number is written.
"""

from __future__ import annotations

import functools
import math
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from runner import fingerprint
from runner.inputs import parse_n
from runner.results import load_sweeps, workloads
from runner.results.summary import counted_runs, load_runs
from runner.results.timelines import load_timelines

_SELECTION = re.compile(r"^(?P<dir>[^:#]+)(?::(?P<label>[^#]+))?(?:#(?P<lo>\d+)-(?P<hi>\d*))?$")
_QUANTITY = re.compile(r"^(?P<what>[^{]+?)(?P<fmt>\{.*\}.*)?$")
BYTES = {"peak_rss", "cgroup_peak", "sampled_peak_rss", "cgroup_kernel", "client_peak", "held_rss", "hwm_max"}
SHOWS = ("one", "range", "span", "median", "each", "count", "total")


class QueryError(ValueError):
    """A selection or quantity that cannot be answered; one line saying why."""


@dataclass(frozen=True)
class Selection:
    """The counted runs of one label of one directory (sweeps K to M)."""

    text: str
    runs: pd.DataFrame
    sweeps: list[dict[str, Any]]


@functools.cache
def _loaded(directory: str) -> tuple[pd.DataFrame, tuple[dict[str, Any], ...]]:
    path = Path(directory)
    return load_runs([path]), tuple(load_sweeps([path]))


def select(text: str, workload: str) -> Selection:
    m = _SELECTION.match(text)
    if not m:
        raise QueryError(f"{text!r}: a selection is DIR[:LABEL][#K-M]")
    runs, sweeps = _loaded(m["dir"].rstrip("/"))
    runs = runs[workloads.column(runs) == workload]
    labels = sorted(set(runs["label"].dropna())) if "label" in runs else []
    label = m["label"]
    if label is None:
        if len(labels) > 1:
            raise QueryError(
                f"{m['dir']} holds {len(labels)} labels ({', '.join(labels)}): name one, DIR:LABEL"
            )
        label = labels[0] if labels else None
    elif label not in labels:
        raise QueryError(
            f"no {workload} runs of label {label!r} in {m['dir']} (it has {', '.join(labels) or 'none'})"
        )
    if label is not None:
        runs = runs[runs["label"] == label]
    ids = sorted(str(s["sweep_id"]) for s in sweeps if s.get("sweep_id"))
    ids = [i for i in dict.fromkeys(ids) if i in set(runs["sweep_id"])]
    if m["lo"]:
        lo, hi = int(m["lo"]), int(m["hi"]) if m["hi"] else len(ids)
        ids = ids[lo - 1 : hi]
        runs = runs[runs["sweep_id"].isin(ids)]
    chosen = [s for s in sweeps if s.get("sweep_id") in set(ids)]
    return Selection(text, counted_runs(runs), chosen)


@dataclass(frozen=True)
class Quantity:
    text: str
    column: str
    n: int | None
    per_task: bool = False
    fmt: str | None = None
    baseline: bool = True  # per_task: against N = 1 (per_n: the whole value over N)

    @classmethod
    def parse(cls, text: str) -> Quantity:
        m = _QUANTITY.match(text.strip())
        if not m:
            raise QueryError(f"{text!r}: not a quantity")
        what, fmt = m["what"].strip(), m["fmt"]
        if what in ("runs",) or what.startswith("machine:"):
            return cls(text, what, None, fmt=fmt)
        per_task = what.startswith(("per_task:", "per_n:"))
        baseline = not what.startswith("per_n:")
        what = what.removeprefix("per_task:").removeprefix("per_n:")
        column, at, n = what.partition("@")
        if not at:
            raise QueryError(f"{text!r}: say at which N, COLUMN@N")
        try:
            return cls(text, column, parse_n(n), per_task, fmt, baseline)
        except ValueError as e:
            raise QueryError(f"{text!r}: {e}") from None

    @property
    def unit(self) -> str:
        base = self.column.split(".")[0]
        if self.per_task:
            return "KiB"
        if self.column == "runs":
            return "count"
        if self.column == "machine:ram_bytes":
            return "GiB"
        if base in BYTES or base.startswith("cgroup_breakdown"):
            return "MB"
        return "s" if base.endswith("_s") else ""

    def format(self, value: float) -> str:
        default = {"KiB": "{:.2f}", "MB": "{:,.1f}", "GiB": "{:.1f} GiB", "s": "{:.2f} s", "count": "{:,.0f}"}
        return unsigned_zero((self.fmt or default.get(self.unit, "{:g}")).format(value))


def unsigned_zero(text: str) -> str:
    """ "-0.00" (a difference that rounds to nothing) written as "0.00"."""
    return text[1:] if text.startswith("-") and not re.search(r"[1-9]", text) else text


def _span(lo: str, hi: str) -> str:
    """ "0.37 s" and "0.55 s" as one range with the unit once, "0.37 to 0.55 s" with a dash."""
    unit = re.search(r"[^\d.,]*$", lo)
    tail = unit.group(0) if unit else ""
    if tail.strip() and hi.endswith(tail):
        return f"{lo[: len(lo) - len(tail)]}–{hi}"
    return f"{lo}–{hi}"


@dataclass(frozen=True)
class Value:
    """A variant's figure, or why it has none."""

    number: float | None
    reason: str = ""


@functools.cache
def _timelines(source: str, run_ids: frozenset[str]) -> dict[str, Any]:
    return load_timelines(Path(source), run_ids)


def _held_rss(sel: Selection, run_ids: list[str]) -> dict[str, float]:
    """run id -> the highest sampled RSS between `ready` and the end of its sleep."""
    sources = {str(s) for s in sel.runs.get("source", [])}
    timelines: dict[str, Any] = {}
    for source in sorted(sources):
        timelines.update(_timelines(source, frozenset(run_ids)))
    out = {}
    rows = sel.runs.set_index("run_id")
    for rid in run_ids:
        ready, sleep = rows.at[rid, "ready_s"], rows.at[rid, "sleep_s"]
        samples = [s for s in timelines.get(rid, []) if ready <= s.t <= ready + sleep and s.rss is not None]
        if samples:
            out[rid] = float(max(s.rss for s in samples))
    return out


def _column(sel: Selection, q: Quantity, valid: pd.DataFrame) -> pd.Series:
    """The quantity's column over valid runs (a dict key or a timeline reading where asked)."""
    base, _, key = q.column.partition(".")
    if base == "held_rss":
        held = _held_rss(sel, [str(r) for r in valid["run_id"]])
        return valid["run_id"].map(lambda r: held.get(str(r)))
    if base not in valid:
        raise QueryError(f"{q.text!r}: no column {base!r} in these runs")
    if key:
        return valid[base].map(lambda d: d.get(key) if isinstance(d, dict) else None)
    return valid[base]


def _median_at(sel: Selection, q: Quantity, n: int, column: str | None = None) -> dict[str, Value]:
    cell = sel.runs[sel.runs["n"] == n]
    out: dict[str, Value] = {}
    for variant, runs in cell.groupby("variant", sort=True):
        valid = runs[runs["verdict"] == "valid"]
        if valid.empty:
            reason = runs.iloc[-1].get("reason")
            out[str(variant)] = Value(
                None, reason if isinstance(reason, str) else str(runs.iloc[-1]["verdict"])
            )
            continue
        series = _column(sel, Quantity(q.text, column or q.column, n), valid).dropna()
        out[str(variant)] = Value(float(series.median()) if len(series) else None, "not recorded")
    return out


def values(sel: Selection, q: Quantity) -> dict[str, Value]:
    """variant -> the quantity's value in the selection, in its unit."""
    if q.column == "runs":
        return {str(v): Value(float(len(r))) for v, r in sel.runs.groupby("variant", sort=True)}
    if q.column.startswith("machine:"):
        field = q.column.removeprefix("machine:")
        found = [fingerprint.of_sweep(s).get(field) for s in sel.sweeps]
        numbers = [x / (1 << 30) if field == "ram_bytes" else float(x) for x in found if x is not None]
        # one machine: its RAM moves by a few KiB between boots, never by what the format shows
        if len({q.format(x) for x in numbers}) != 1:
            raise QueryError(f"{q.text!r}: {sel.text} has {len(set(numbers))} values of {field}")
        return {"": Value(statistics.median(numbers))}
    assert q.n is not None
    at = _median_at(sel, q, q.n)
    if not q.per_task:
        scale = 1e6 if q.unit == "MB" else 1.0
        return {v: Value(x.number / scale, x.reason) if x.number is not None else x for v, x in at.items()}
    if not q.baseline:  # per_n: the whole figure over N, where no run at N = 1 was made
        return {v: x if x.number is None else Value(x.number / q.n / 1024, x.reason) for v, x in at.items()}
    one = _median_at(sel, q, 1)  # the same reading at N = 1

    out = {}
    for v, x in at.items():
        base = one.get(v)
        if x.number is None or base is None or base.number is None:
            out[v] = Value(None, x.reason or f"no figure at N = 1 in {sel.text}")
        else:
            out[v] = Value((x.number - base.number) / q.n / 1024)
    return out


def compared(mine: dict[str, Value], theirs: dict[str, Value], how: str) -> dict[str, Value]:
    """Per variant in both: mine ÷ theirs (ratio) or mine - theirs (difference)."""
    op: Callable[[float, float], float] = (lambda a, b: a / b) if how == "ratio" else (lambda a, b: a - b)
    return {
        v: Value(op(x.number, theirs[v].number))
        for v, x in mine.items()
        if v in theirs and x.number is not None and theirs[v].number is not None
    }


def shown(found: dict[str, Value], show: str, fmt: Callable[[float], str]) -> str:
    """The values as a sentence needs them."""
    numbers = {v: x.number for v, x in found.items() if x.number is not None}
    if show == "count":
        return f"{len(numbers):,}"
    if not numbers:
        raise QueryError("no variant has a value there")
    lo_v, hi_v = min(numbers, key=lambda v: (numbers[v], v)), max(numbers, key=lambda v: (numbers[v], v))
    if show == "one":
        if len(numbers) != 1:
            raise QueryError(
                f"{len(numbers)} variants have a value ({', '.join(numbers)}): choose one with -r"
            )
        return fmt(next(iter(numbers.values())))
    if show == "range":
        lo, hi = fmt(numbers[lo_v]), fmt(numbers[hi_v])
        return lo if lo == hi else _span(lo, hi)
    if show == "span":
        return f"{fmt(numbers[lo_v])} ({lo_v}) to {fmt(numbers[hi_v])} ({hi_v})"
    if show == "median":
        return fmt(statistics.median(numbers.values()))
    if show == "total":
        return fmt(math.fsum(numbers.values()))
    return ", ".join(f"{v} {fmt(x)}" for v, x in sorted(numbers.items(), key=lambda i: (i[1], i[0])))


def value(
    selection: str,
    quantity: str,
    workload: str,
    show: str = "one",
    variants: tuple[str, ...] = (),
    against: str | None = None,
    how: str = "ratio",
) -> str:
    """`memrun derive value`: one figure for a sentence."""
    q = Quantity.parse(quantity)
    found = values(select(selection, workload), q)
    fmt = q.format
    if against is not None:
        found = compared(found, values(select(against, workload), q), how)
        if how == "ratio":
            fmt = (q.fmt or "{:.1f}×").format
    if variants:
        found = {v: x for v, x in found.items() if v in variants}
    return shown(found, show, fmt)


@dataclass(frozen=True)
class Column:
    header: str
    parts: list[tuple[str, Quantity]]  # (selection name, quantity)

    @classmethod
    def parse(cls, text: str, names: set[str]) -> Column:
        header, eq, spec = text.partition("=")
        if not eq or not spec.strip():
            raise QueryError(f"{text!r}: a column is HEADER=NAME:QUANTITY[+NAME:QUANTITY…]")
        parts = []
        for part in spec.split("+"):
            name, colon, quantity = part.strip().partition(":")
            if not colon or name not in names:
                raise QueryError(
                    f"{part!r}: each part is NAME:QUANTITY, NAME one of --from ({', '.join(sorted(names))})"
                )
            parts.append((name, Quantity.parse(quantity)))
        return cls(header.strip(), parts)


def table(
    sources: dict[str, str],
    columns: list[str],
    workload: str,
    variants: tuple[str, ...] = (),
    sort: int = 1,
) -> str:
    """`memrun derive table`: a Markdown table, one row per variant, rows sorted by a column's
    first figure (variants without one last)."""
    selections = {name: select(text, workload) for name, text in sources.items()}
    cols = [Column.parse(c, set(sources)) for c in columns]
    cells: list[list[dict[str, Value]]] = [[values(selections[name], q) for name, q in c.parts] for c in cols]
    names = sorted({v for col in cells for part in col for v in part if not variants or v in variants})
    if not 0 <= sort <= len(cols):
        raise QueryError(f"--sort {sort}: there are {len(cols)} columns (0: the order of -r)")

    def key(v: str) -> tuple[bool, float, str]:
        if sort == 0:  # as -r gave them (versions in version order)
            return (False, float(variants.index(v)) if v in variants else 1e12, v)
        x = cells[sort - 1][0].get(v)
        return (x is None or x.number is None, x.number if x and x.number is not None else 0.0, v)

    lines = ["| variant | " + " | ".join(c.header for c in cols) + " |", "|---|" + "---|" * len(cols)]
    for v in sorted(names, key=key):
        row = []
        for c, col in zip(cols, cells, strict=True):
            found = [part.get(v) for part in col]
            if all(x is None for x in found):
                row.append("—")
            elif all(x is not None and x.number is None for x in found):
                row.append(f"no figure: {next(x.reason for x in found if x is not None)}")
            else:
                row.append(
                    " · ".join(
                        q.format(x.number) if x and x.number is not None else "—"
                        for (_, q), x in zip(c.parts, found, strict=True)
                    )
                )
        lines.append(f"| {v} | " + " | ".join(row) + " |")
    return "\n".join(lines)
