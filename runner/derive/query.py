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
- `runs`: how many runs count; `runs@N`, `valid@N`: how many counted runs at N, how many of them
  valid (a margin's "3 of 5");
- `capacity:FIELD@BUDGET`: a stored capacity answer's field (`capacity:max_n@256MiB`; which
  answer, and the fields: runner/derive/answers.py); `capacity:vs_naive@BUDGET`, its max N over
  what dividing predicts from the selection's sweep (the capacity figure's "x naive" labels);
- `sweep:FIELD`: a field of the selection's sweeps' end records, summed over them
  (`total_wall_s`, `programs_wall_s`, `cells_run`);
- `machine:FIELD`: a field of the selection's machine fingerprint (one value; `ram_bytes` in GiB).
A `/NUMBER` after it divides each figure by that constant, a published figure in the same unit
(`peak_rss@1e6/2658`: ours over the article's 2,658 MB, written as a ratio). Several quantities
joined by `;` are one pool of figures for `--show range`, `median` or `count` (the article's
ratios at four N: `peak_rss@1/1.8;peak_rss@1e4/28.6`). A `{format}` after it
(`per_task:peak_rss@1e4{:.1f} KiB`) sets how each number is written.
"""

from __future__ import annotations

import functools
import math
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from runner import fingerprint
from runner.analysis.capacity import naive_of_summary
from runner.derive import answers
from runner.derive.stored import SELECTION, stored, stored_timelines
from runner.inputs import parse_n
from runner.results import workloads
from runner.results.summary import counted_runs, summarize
from runner.workload import Workload, get

_QUANTITY = re.compile(r"^(?P<what>[^{/]+?)(?:/(?P<div>[0-9][0-9.,]*))?(?P<fmt>\{.*\}.*)?$")
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
    directory: str = ""
    label: str | None = None
    sessions: tuple[int, int | None] | None = None  # #K-M as written (capacity answers count their own)
    workload: Workload = field(default_factory=get)  # the default workload's, unless chosen


def select(text: str, workload: Workload) -> Selection:
    m = SELECTION.match(text)
    if not m:
        raise QueryError(f"{text!r}: a selection is DIR[:LABEL][#K-M]")
    runs, sweeps = stored(m["dir"].rstrip("/"))
    runs = runs[workloads.column(runs) == workload.name]  # stored rows keep the name
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
            f"no {workload.name} runs of label {label!r} in {m['dir']} (it has {', '.join(labels) or 'none'})"
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
    sessions = (int(m["lo"]), int(m["hi"]) if m["hi"] else None) if m["lo"] else None
    return Selection(text, counted_runs(runs), chosen, m["dir"].rstrip("/"), label, sessions, workload)


@dataclass(frozen=True)
class Quantity:
    text: str
    column: str
    n: int | None
    per_task: bool = False
    fmt: str | None = None
    baseline: bool = True  # per_task: against N = 1 (per_n: the whole value over N)
    divisor: float | None = None  # /NUMBER: over a published figure

    @classmethod
    def parse(cls, text: str) -> Quantity:
        m = _QUANTITY.match(text.strip())
        if not m:
            raise QueryError(f"{text!r}: not a quantity")
        what, fmt = m["what"].strip(), m["fmt"]
        divisor = float(m["div"].replace(",", "")) if m["div"] else None
        if divisor == 0:
            raise QueryError(f"{text!r}: a figure cannot be divided by 0")
        if what in ("runs",) or what.startswith(("machine:", "sweep:")):
            return cls(text, what, None, fmt=fmt, divisor=divisor)
        if what.startswith("capacity:"):
            try:
                answers.parse(what)
            except answers.AnswerError as e:
                raise QueryError(str(e)) from None
            return cls(text, what, None, fmt=fmt, divisor=divisor)
        per_task = what.startswith(("per_task:", "per_n:"))
        baseline = not what.startswith("per_n:")
        what = what.removeprefix("per_task:").removeprefix("per_n:")
        column, at, n = what.partition("@")
        if not at:
            raise QueryError(f"{text!r}: say at which N, COLUMN@N")
        try:
            return cls(text, column, parse_n(n), per_task, fmt, baseline, divisor)
        except ValueError as e:
            raise QueryError(f"{text!r}: {e}") from None

    @property
    def unit(self) -> str:
        base = self.column.split(".")[0]
        if self.column.startswith("sweep:"):
            return "s" if self.column.endswith("_s") else "count"
        if self.column.startswith("capacity:"):
            field, _ = answers.parse(self.column)
            if field in answers.COUNTS:
                return "count"
            return "MB" if field.endswith("_bytes") else ("s" if field.endswith("_s") else "ratio")
        if self.per_task:
            return "KiB"
        if self.column in ("runs", "valid"):
            return "count"
        if self.column == "machine:ram_bytes":
            return "GiB"
        if base in BYTES or base.startswith("cgroup_breakdown"):
            return "MB"
        return "s" if base.endswith("_s") else ""

    def format(self, value: float) -> str:
        default = {"KiB": "{:.2f}", "MB": "{:,.1f}", "GiB": "{:.1f} GiB", "s": "{:.2f} s", "count": "{:,.0f}",
                   "ratio": "{:.2f}"}  # fmt: skip
        unit = "ratio" if self.divisor is not None else self.unit  # over a published figure
        return unsigned_zero((self.fmt or default.get(unit, "{:g}")).format(value))


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
def _summary(selection: str, workload: Workload) -> pd.DataFrame:
    """The selection's summary of peak RSS (what naive_capacity divides by), made once for all the
    budgets a command asks of it."""
    runs = select(selection, workload).runs
    return summarize(runs, "peak_rss") if not runs.empty else pd.DataFrame()


def _held_rss(sel: Selection, run_ids: list[str]) -> dict[str, float]:
    """run id -> the highest sampled RSS between `ready` and the end of its sleep. The timelines
    of every run of the selection are read at once, and once: a table asks for one variant and N
    at a time, and each read parses the whole timelines file."""
    sources = {str(s) for s in sel.runs.get("source", [])}
    everyone = frozenset(str(r) for r in sel.runs["run_id"])
    timelines: dict[str, Any] = {}
    for source in sorted(sources):
        timelines.update(stored_timelines(source, everyone))
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
    """variant -> the quantity's value in the selection, in its unit (over its divisor, if any)."""
    found = _values(sel, q)
    if q.divisor is None:
        return found
    return {v: x if x.number is None else Value(x.number / q.divisor, x.reason) for v, x in found.items()}


def _values(sel: Selection, q: Quantity) -> dict[str, Value]:
    if q.column in ("runs", "valid"):
        runs = sel.runs if q.n is None else sel.runs[sel.runs["n"] == q.n]
        return {
            str(v): Value(float(len(r) if q.column == "runs" else (r["verdict"] == "valid").sum()))
            for v, r in runs.groupby("variant", sort=True)
        }
    if q.column.startswith("capacity:"):
        field, budget = answers.parse(q.column)
        try:
            found = answers.figures(
                sel.directory,
                sel.label,
                sel.sessions,
                sel.workload,
                "max_n" if field == "vs_naive" else field,
                budget,
            )
        except answers.AnswerError as e:
            raise QueryError(str(e)) from None
        if field == "vs_naive":  # max N over what dividing the budget by the sweep's cost predicts
            naive = naive_of_summary(_summary(sel.text, sel.workload), budget)
            found = {v: x / naive[v] if x is not None and naive.get(v) else None for v, x in found.items()}
        scale = 1e6 if q.unit == "MB" else 1.0
        return {v: Value(x / scale if x is not None else None, "not recorded") for v, x in found.items()}
    if q.column.startswith("sweep:"):
        found = [s.get(q.column.removeprefix("sweep:")) for s in sel.sweeps]
        if not any(isinstance(x, int | float) for x in found):
            raise QueryError(f"{q.text!r}: no sweep of {sel.text} recorded it")
        return {"": Value(math.fsum(float(x) for x in found if isinstance(x, int | float)))}
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
    workload: Workload,
    show: str = "one",
    variants: tuple[str, ...] = (),
    against: str | None = None,
    how: str = "ratio",
    against_variant: str | None = None,
) -> str:
    """`memrun derive value`: one figure for a sentence (several quantities joined by `;` pool
    their figures, each variant's once per quantity). against_variant: every variant is compared
    with that one variant of the other selection (a version against the installed runtime)."""
    parts = quantity.split(";")
    fmt_all = re.search(r"\{.*$", parts[-1])  # the last part's {format} is every part's
    if fmt_all and len(parts) > 1:
        parts = [p if "{" in p else p + fmt_all.group(0) for p in parts]
    qs = [Quantity.parse(part) for part in parts]
    if len(qs) > 1 and show not in ("range", "median", "count", "total"):
        raise QueryError(f"{quantity!r}: several quantities pool for --show range, median, count or total")
    sel = select(selection, workload)
    if against_variant is not None and against is None:
        against = selection
    theirs = select(against, workload) if against is not None else None
    found: dict[str, Value] = {}
    for i, q in enumerate(qs):
        mine = values(sel, q)
        if theirs is not None:
            other = values(theirs, q)
            if against_variant is not None:
                if against_variant not in other:
                    raise QueryError(f"--against-variant {against_variant}: no such variant in {against}")
                other = dict.fromkeys(mine, other[against_variant])
            mine = compared(mine, other, how)
        if variants:
            mine = {v: x for v, x in mine.items() if v in variants}
        found.update({(v if len(qs) == 1 else f"{v} ({i + 1})"): x for v, x in mine.items()})
    q = qs[0]
    fmt = q.format
    if against is not None and how == "ratio":
        fmt = (q.fmt or "{:.1f}×").format
    return shown(found, show, fmt)
