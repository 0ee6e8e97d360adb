"""Where each byte of a task goes: the per-task cost split into parts, from the snapshots that
valid runs took at their hold (runner.measure.hold).

For a variant at N, each part's per-task cost is (part(N) - part(1)) / N, the house's per-task
rule (runner.results.summary), with each part the median over the cell's valid runs. Two views,
each summed against the figure it explains:
- resident memory (the headline): thread stacks, heap and arenas, other anonymous, file-backed;
  their sum is the tree's RSS at the hold, set against the peak RSS;
- the cgroup: the user pages it was charged, kernel stacks, page tables, slab, other kernel
  memory (sockets where the cgroup counts them); their sum is its usage at the hold, set against
  its peak.
What the parts do not cover (a peak reached outside the hold, or a cgroup figure that is not
what memory.stat lists) is the view's "unattributed", with its size: never spread over the parts.
cgroup v1 keeps no kernel-stack or slab counter per cgroup, only their total: there they are one
part, "kernel stacks, slab, other" (v2 splits them).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from runner.judge.overlap import hold_window_end
from runner.results.record import RunRecord
from runner.workload import get as get_workload

# (key, title) of each part, in the order a table lists them.
RSS_PARTS = (
    ("stack", "thread stacks (touched)"),
    ("heap", "heap and arenas"),
    ("anon", "other anonymous"),
    ("file", "file-backed code and data"),
)
CGROUP_PARTS = (
    ("cg_user", "user pages charged"),
    ("kernel_stack", "kernel stacks"),
    ("pagetables", "page tables"),
    ("slab", "slab"),
    ("sock", "socket buffers"),
    ("kernel_other", "other kernel"),
)
V1_KERNEL_OTHER = "kernel stacks, slab, other (cgroup v1 keeps one total)"
TOLERANCE = 0.02  # parts that sum to within 2 % of the measured figure explain it
PARTS_TITLE = dict(RSS_PARTS + CGROUP_PARTS)


def components(split: dict[str, Any]) -> dict[str, float]:
    """One snapshot as flat byte counts: the parts of both views, their sums, and what the
    reserved figures and counts add (stack_reserved, guard, stacks, threads)."""
    user = split.get("user", {})

    def rss(kind: str) -> float:
        return float(user.get(kind, {}).get("rss", 0))

    out: dict[str, float] = {
        "stack": rss("stack"),
        "heap": rss("heap"),
        "anon": rss("anon") + rss("guard"),
        "file": rss("file"),
        "stack_reserved": float(user.get("stack", {}).get("size", 0)),
        "guard": float(user.get("guard", {}).get("size", 0)),
        "stacks": float(user.get("stack", {}).get("count", 0)),
        "threads": float(split.get("threads", 0)),
    }
    out["rss_hold"] = out["stack"] + out["heap"] + out["anon"] + out["file"]
    cg = split.get("cgroup")
    if cg:
        kernel = float(cg.get("kernel", 0))
        v2 = "kernel_stack" in cg
        sock = float(cg.get("sock", 0))
        # v2: sockets are part of memory.current; v1 counts them in a counter of their own.
        usage = float(cg["usage"]) + (0.0 if v2 else sock)
        pagetables = float(cg["pagetables"]) if v2 else float(split.get("pte", 0))
        out.update(
            cg_hold=usage,
            cg_user=usage - kernel - sock,
            pagetables=pagetables,
            sock=sock,
            kernel_stack=float(cg.get("kernel_stack", 0)),
            slab=float(cg.get("slab", 0)),
        )
        out["kernel_other"] = kernel - pagetables - out["kernel_stack"] - out["slab"]
        out["v1"] = 0.0 if v2 else 1.0
    return out


def in_hold(record: RunRecord) -> bool:
    """Whether the record's snapshot was taken, start to end, while every task waited."""
    r = record.result
    if r is None or not r.hold_split or r.ready_s is None or record.sleep_s is None:
        return False
    until = hold_window_end(get_workload(record.workload).holds_after_ready, r.ready_s, record.sleep_s)
    split = r.hold_split
    return until is not None and split["t"] >= r.ready_s and split["t"] + split.get("took_s", 0) <= until


@dataclass(frozen=True)
class Point:
    """One N of a variant: medians of its valid runs' components and measured figures."""

    n: int
    runs: int
    parts: dict[str, float]
    peak_rss: float
    cgroup_peak: float | None


def point(n: int, records: list[RunRecord]) -> Point:
    comps = [components(r.result.hold_split) for r in records if r.result and r.result.hold_split]
    keys = set().union(*comps) if comps else set()
    parts = {k: statistics.median(c[k] for c in comps if k in c) for k in keys}
    peaks = [r.result.cgroup_peak for r in records if r.result and r.result.cgroup_peak]
    return Point(
        n,
        len(comps),
        parts,
        statistics.median(r.result.peak_rss for r in records if r.result),
        statistics.median(peaks) if peaks else None,
    )


@dataclass(frozen=True)
class View:
    """One view's per-task parts at N: (key, title, bytes per task), their sum, the measured
    per-task figure, and the gap between them (unattributed)."""

    parts: list[tuple[str, str, float]]
    total: float
    measured: float | None

    @property
    def unattributed(self) -> float | None:
        return None if self.measured is None else self.measured - self.total

    @property
    def explained(self) -> bool:
        """Whether the parts sum to within TOLERANCE of the measured figure."""
        if self.measured is None or self.unattributed is None:
            return False
        return abs(self.unattributed) <= TOLERANCE * abs(self.measured)


@dataclass(frozen=True)
class Split:
    """A variant's per-task split at one N, against its N=1 baseline."""

    label: str | None
    variant: str
    n: int
    runs: int
    rss: View
    cgroup: View | None
    extra: dict[str, float] = field(default_factory=dict)  # reserved stack, guard, stacks, threads per task


def per_task(top: Point, base: Point, key: str) -> float | None:
    if key not in top.parts or key not in base.parts:
        return None
    return (top.parts[key] - base.parts[key]) / top.n


def split_at(label: str | None, variant: str, top: Point, base: Point) -> Split:
    """The per-task split of `top` against `base` (N=1)."""
    rss_parts = [(k, t, per_task(top, base, k) or 0.0) for k, t in RSS_PARTS]
    rss = View(rss_parts, sum(p for _, _, p in rss_parts), (top.peak_rss - base.peak_rss) / top.n)
    cgroup = None
    if "cg_hold" in top.parts and "cg_hold" in base.parts:
        v1 = bool(top.parts.get("v1"))
        parts = []
        for k, t in CGROUP_PARTS:
            if v1 and k in ("kernel_stack", "slab"):
                continue
            if k == "sock" and not (top.parts.get("sock") or base.parts.get("sock")):
                continue
            parts.append(
                (k, V1_KERNEL_OTHER if v1 and k == "kernel_other" else t, per_task(top, base, k) or 0.0)
            )
        measured = None
        if top.cgroup_peak is not None and base.cgroup_peak is not None:
            measured = (top.cgroup_peak - base.cgroup_peak) / top.n
            if v1 and top.parts.get("sock"):  # v1's peak leaves its socket counter out
                measured += per_task(top, base, "sock") or 0.0
        cgroup = View(parts, sum(p for _, _, p in parts), measured)
    extra = {
        k: v
        for k in ("stack_reserved", "guard", "stacks", "threads")
        if (v := per_task(top, base, k)) is not None
    }
    return Split(label, variant, top.n, top.runs, rss, cgroup, extra)


def splits(
    records: Iterable[RunRecord], variants: Iterable[str] = (), ns: Iterable[int] = ()
) -> tuple[list[Split], list[str]]:
    """Every (label, variant, N > 1) with valid sweep runs that took their snapshot in the hold and
    an N=1 baseline of the same label: its split. Also the reasons cells were left out."""
    want_v, want_n = set(variants), set(ns)
    cells: dict[tuple[str | None, str, int], list[RunRecord]] = {}
    outside: dict[tuple[str | None, str, int], int] = {}
    for r in records:
        if r.verdict != "valid" or r.superseded or r.kind != "sweep" or r.result is None:
            continue
        if want_v and r.variant not in want_v:
            continue
        if not r.result.hold_split:
            continue
        key = (r.label, r.variant, r.n)
        if in_hold(r):
            cells.setdefault(key, []).append(r)
        else:
            outside[key] = outside.get(key, 0) + 1
    out, notes = [], []
    for (label, variant, n), runs in sorted(
        cells.items(), key=lambda kv: (str(kv[0][0]), kv[0][1], kv[0][2])
    ):
        if n == 1 or (want_n and n not in want_n):
            continue
        base = cells.get((label, variant, 1))
        if base is None:
            notes.append(f"{variant} at N={n:,}: no valid N=1 run with a snapshot to subtract")
            continue
        out.append(split_at(label, variant, point(n, runs), point(1, base)))
    for (_, variant, n), count in sorted(outside.items(), key=lambda kv: (kv[0][1], kv[0][2])):
        notes.append(f"{variant} at N={n:,}: {count} snapshot(s) outside the hold, left out")
    return out, notes


@dataclass(frozen=True)
class BookLine:
    """One figure of a runtime's books per task, beside the memrun part it falls in."""

    name: str
    part: str
    per_task: float
    memrun: float | None  # memrun's per-task bytes of that part, in the same runs

    @property
    def ratio(self) -> float | None:
        return None if not self.memrun else self.per_task / self.memrun


@dataclass(frozen=True)
class BooksView:
    variant: str
    n: int
    runs: int
    split: Split
    lines: list[BookLine]


def books_views(records: Iterable[RunRecord], parts_of: dict[str, dict[str, str]]) -> list[BooksView]:
    """For each variant with books runs at N and at 1: each book figure per task, beside memrun's
    part of the same runs. parts_of: variant -> {figure name: part} (its manifest's books)."""
    cells: dict[tuple[str, int], list[RunRecord]] = {}
    for r in records:
        if r.kind == "books" and r.verdict == "valid" and r.books is not None and in_hold(r):
            cells.setdefault((r.variant, r.n), []).append(r)
    out = []
    for (variant, n), runs in sorted(cells.items()):
        base = cells.get((variant, 1))
        if n == 1 or base is None:
            continue
        split = split_at(runs[0].label, variant, point(n, runs), point(1, base))
        memrun = {k: p for k, _, p in split.rss.parts} | {"total": split.rss.total}
        memrun["anonymous"] = memrun["stack"] + memrun["heap"] + memrun["anon"]
        lines = []
        for name, part in parts_of.get(variant, {}).items():
            top = [r.books[name] for r in runs if name in (r.books or {})]
            low = [r.books[name] for r in base if name in (r.books or {})]
            if top and low:
                value = (statistics.median(top) - statistics.median(low)) / n
                lines.append(BookLine(name, part, value, memrun.get(part)))
        out.append(BooksView(variant, n, len(runs), split, lines))
    return out


def from_rows(runs: Any) -> list[RunRecord]:
    """The records of a table of runs (runner.results.summary.load_runs: one row per record, its
    missing values NaN), for what reads records rather than the table."""
    if runs is None or len(runs) == 0 or "hold_split" not in runs:
        return []
    out = []
    for row in runs.to_dict("records"):
        if not isinstance(row.get("hold_split"), dict):
            continue
        clean = {k: v for k, v in row.items() if not (isinstance(v, float) and v != v)}
        out.append(RunRecord.from_json(clean))
    return out
