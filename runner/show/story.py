"""`memrun inspect`: the runs to look at, and each one's story in a few lines of text.

A failed cell's one-line verdict says what happened; the story says how, in time order, from the
stored timeline: when threads began, where their creation slowed or stopped and at which limit,
when `ready` came (or that it never did), when the first tasks' sleep ran out, how the run
ended, where the CPU time went, and what N would take in memory. The figure beside it
(runner.show.figures.timeline) draws the same. Stored results are read, never a task program run.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.judge.diagnose import Diagnosis, creation_start, diagnose_run, live, rounded
from runner.judge.overlap import HELD, hold_ratio, hold_window_end, timing_proves_overlap
from runner.limits import futex
from runner.limits.host import Limits, int_value
from runner.limits.predict import need
from runner.measure.result import Sample
from runner.results.needs import thread_need
from runner.results.record import RunRecord
from runner.show.beside import beside_lines
from runner.show.ending import end_label
from runner.tasks.proof import told
from runner.units import mb, size
from runner.workload import is_default


@dataclass
class Case:
    """One run to inspect, with everything its story and figure need."""

    directory: Path
    record: RunRecord
    timeline: list[Sample]
    limits: Limits  # those its sweep recorded (or read now, when it recorded none)
    limits_source: str  # "its sweep" or "read now"
    per_task: dict  # from the variant's manifest ({} when the variant is unknown here)
    cpus: int | None
    diagnosis: Diagnosis | None = None
    need: str | None = None
    figures: list[Path] = field(default_factory=list)


def choose(
    records: Sequence[tuple[Path, RunRecord]],
    variants: Sequence[str] = (),
    n: int | None = None,
    run_id: str | None = None,
) -> list[tuple[Path, RunRecord]]:
    """The runs to inspect. --run names one. Otherwise the latest sweep that has runs matching
    the variant and N filters: its runs without a figure, or, when every one of them is valid,
    those valid runs (a valid run has a story too). Capacity probes count as runs of no sweep."""
    if run_id:
        return [(d, r) for d, r in records if r.run_id == run_id]
    matching = [
        (d, r) for d, r in records if (not variants or r.variant in variants) and (n is None or r.n == n)
    ]
    if not matching:
        return []
    latest = max(str(r.sweep_id or "") for _, r in matching)
    in_sweep = [(d, r) for d, r in matching if str(r.sweep_id or "") == latest]
    failed = [(d, r) for d, r in in_sweep if r.verdict != "valid"]
    if failed or (not variants and n is None):
        return failed
    return in_sweep


def make_case(
    directory: Path,
    record: RunRecord,
    timeline: list[Sample],
    sweep: dict[str, Any] | None,
    per_task: dict,
    records: Sequence[RunRecord],
    now: Limits,
) -> Case:
    """A run with its limits (its sweep's, else `now`), diagnosis and what N would take."""
    recorded = (sweep or {}).get("limits")
    limits, source = (recorded, "its sweep") if isinstance(recorded, dict) else (now, "read now")
    if source == "its sweep" and "futex_hash_buckets" not in limits and _same_kernel(sweep or {}):
        # recorded before memrun read it; a fact of the kernel and the CPUs, which are the same
        limits = {**limits, "futex_hash_buckets": now.get("futex_hash_buckets")}
    limits = futex.as_run_had(limits, record.env_extra)
    case = Case(directory, record, timeline, limits, source, per_task, (sweep or {}).get("cpus"))
    r = record.result
    if r is not None and timeline:
        case.diagnosis = diagnose_run(r, timeline, record.n, record.sleep_s, per_task, limits)
    if record.verdict != "valid":
        case.need = thread_need(records, record.variant, per_task, record.n, limits, record.resolved_workload)
    return case


def _same_kernel(sweep: dict[str, Any]) -> bool:
    return sweep.get("kernel") == os.uname().release and sweep.get("cpus") == os.cpu_count()


def _events(case: Case) -> list[tuple[float, str]]:
    """(seconds, what happened) in time order, from the timeline and the run's outcome."""
    record, r, points = case.record, case.record.result, live(case.timeline)
    out: list[tuple[float, str]] = []
    after_ready = record.resolved_workload.holds_after_ready  # its hold begins at `ready`
    if points:
        start = creation_start(points)
        peak = max(points, key=lambda p: p.threads)
        wanted = record.n * (need(case.per_task, "threads") or 0)
        of = f" (N needs {wanted:,})" if wanted else ""
        first = points[0]
        out.append((first.t, f"first sample: {first.threads:,} thread(s) in {first.procs} process(es)"))
        stopped = case.diagnosis is not None and case.diagnosis.kind in ("limit", "plateau")
        if not stopped:
            out.append((peak.t, f"{peak.threads:,} threads alive, the most at any sample{of}"))
        end = r.wall_s if r is not None else points[-1].t
        if after_ready and record.sleep_s and r is not None and r.ready_s is not None:
            if r.ready_s + record.sleep_s <= end:  # a client's hold, a tick's
                hold = record.resolved_workload.words.hold
                text = f"the {record.sleep_s:g} s {hold} after `ready` ends"
                out.append((r.ready_s + record.sleep_s, text))
        elif not after_ready and record.sleep_s and start + record.sleep_s <= end:
            out.append((start + record.sleep_s, f"the first tasks' {record.sleep_s:g} s sleep ends"))
    if case.diagnosis is not None:
        out.append((case.diagnosis.at_s, case.diagnosis.text))
    if r is not None:
        if r.ready_s is not None:
            late = not after_ready and r.ready_s > (record.sleep_s or r.ready_s)
            out.append(
                (r.ready_s, f"`ready {r.ready_n}`" + (", after the first tasks had ended" if late else ""))
            )
        else:
            out.append((r.wall_s, "no `ready` line: the program never said all N tasks were alive"))
        out.append((r.wall_s, f"end: {end_label(record)}"))
    return sorted(out, key=lambda e: e[0])


def _turnover(case: Case) -> str | None:
    """For a run whose spawning outlasted the sleep: how many were ever alive together."""
    r, points = case.record.result, live(case.timeline)
    if r is None or r.ready_s is None or not points or not case.record.sleep_s:
        return None
    if r.ready_s <= case.record.sleep_s:
        return None
    top = max(p.threads for p in points)
    alive = (
        f"at most {top:,} threads were alive at once"
        if need(case.per_task, "threads")
        else "the N tasks were never all alive at once"
    )
    return (
        f"{case.record.n:,} tasks started in {r.ready_s:.1f} s ({rounded(case.record.n / r.ready_s)}/s on "
        f"average); the earliest ended after {case.record.sleep_s:g} s, so {alive}"
    )


def _overlap_lines(case: Case) -> list[str]:
    """What proves from outside that the N waits overlapped (runner.judge.overlap): the run's timing, and
    whether memory held still from `ready` until the first wait could end. Read from the timeline,
    so rows stored before memrun recorded the ratio get it too."""
    record, r = case.record, case.record.result
    if r is None or r.ready_s is None or not record.sleep_s:
        return []
    sleep = record.sleep_s
    lines = []
    if record.proof is not None:  # the program's kind of `ready` proof (runner.tasks.proof)
        lines.append(f"  proof     {told(record.proof, r.ready_s, sleep)}")
    if timing_proves_overlap(r.wall_s, sleep):
        lines.append(
            f"  overlap   wall {r.wall_s:.1f} s < 2 × {sleep:g} s sleep: every wait overlapped (timing)"
        )
    elif record.verdict == "valid":
        lines.append(
            f"  overlap   wall {r.wall_s:.1f} s ≥ 2 × {sleep:g} s sleep: valid on its program's "
            "`ready` proof only (tasks/README.md), the run's timing does not prove it"
        )
    until = hold_window_end(record.resolved_workload.holds_after_ready, r.ready_s, sleep)
    ratio = hold_ratio(case.timeline, r.ready_s, until)
    if ratio is not None and until is not None:
        window = [s for s in case.timeline if r.ready_s <= s.t <= until and s.procs > 0]
        top = max(s.rss for s in window)
        held = "memory held still" if ratio >= HELD else "memory still grew after `ready`"
        lines.append(
            f"  hold      RSS {mb(window[0].rss)} at `ready`, highest {mb(top)} until {until:.1f} s "
            f"(the first wait's end): ratio {ratio:.2f}, {held}"
        )
    return lines


def story(case: Case) -> str:
    """The run's story: what it was, its events in time order, memory, CPU, cause and remedy."""
    record, r = case.record, case.record.result
    head = (
        f"{record.variant} N={record.n:,}: {record.verdict} ({record.code}), run {record.run_id}, "
        f"sweep {record.sweep_id}, repeat {record.repeat}, sleep {record.sleep_s or 0:g} s"
    )
    lines = [head]
    if r is None:
        lines.append(f"  not run: {record.reason}")
        return "\n".join(lines)
    if not case.timeline:
        lines.append("  no timeline stored for this run")
    for t, what in _events(case):
        lines.append(f"  {t:8.2f} s  {what}")
    turnover = _turnover(case)
    if turnover:
        lines.append(f"  tasks     {turnover}")
    lines += _overlap_lines(case)
    lines += beside_lines(record)
    cgroup = f", cgroup peak {mb(r.cgroup_peak)} (kernel memory included)" if r.cgroup_peak else ""
    lines.append(f"  memory    peak RSS {mb(r.peak_rss)}{cgroup}")
    if r.user_s is not None and r.sys_s is not None:
        total = r.user_s + r.sys_s
        share = f" ({r.sys_s / total * 100:.0f} % in the kernel)" if total else ""
        pinned = record.resolved_workload.pinned_cpus(record.client)  # a server's taskset
        cpus = f" on {case.cpus} CPUs" if case.cpus else ""
        if pinned:
            cpus = f" pinned to CPU {pinned}" + (f" of {case.cpus}" if case.cpus else "")
        lines.append(
            f"  CPU       user {r.user_s:.1f} s, system {r.sys_s:.1f} s{share} in {r.wall_s:.1f} s{cpus}"
        )
    lines.append(f"  cause     {record.reason}")
    remedy = record.remedy
    futex_bound = case.diagnosis is not None and case.diagnosis.cause == "futex-hash"
    if futex_bound and "--futex-hash" not in (remedy or ""):  # stored before memrun knew it
        remedy = futex.remedy(record.n * (need(case.per_task, "threads") or 1), remedy)
    if remedy:
        lines.append(f"  remedy    {remedy}")
    if case.need and case.need not in (record.remedy or ""):
        lines.append(f"  it would take: {case.need}")
    if case.limits_source != "its sweep":
        memory = size(int_value(case.limits, "mem_total"))
        lines.append(f"  limits    read now (its sweep recorded none); this machine's memory {memory}")
    if case.figures:
        lines.append("  figure    " + ", ".join(str(p) for p in case.figures))
    return "\n".join(lines)


def sweep_summary(records: Sequence[RunRecord], results: Path) -> list[str]:
    """The end of `memrun sweep`: every cell of the sweep without a figure, its cause (the latest
    run's reason) and the command that shows its story and figure. Empty when every cell is valid."""
    cells: dict[tuple[str, int], list[RunRecord]] = {}
    for r in records:
        if not r.superseded:
            cells.setdefault((r.variant, r.n), []).append(r)
    bad = {key: runs for key, runs in cells.items() if any(r.verdict != "valid" for r in runs)}
    if not bad:
        return []
    lines = [f"{len(bad)} cell(s) with runs that gave no figure:"]
    for (variant, n), runs in sorted(bad.items()):
        failed = [r for r in runs if r.verdict != "valid"]
        last = failed[-1]
        lines.append(
            f"  {variant} N={n:,}: {len(failed)} of {len(runs)} run(s) {last.verdict}, {last.reason}"
        )
        workload = "" if is_default(last.workload) else f" --workload {last.workload}"
        lines.append(f"    memrun inspect {results} -r {variant} --n {n}{workload}")
    return lines


def overlap_table(records: Sequence[RunRecord], timelines: dict[str, list[Sample]]) -> list[str]:
    """`memrun inspect --overlap`: per variant and N, what proves from outside that each valid run's
    N waits overlapped: its timing (wall < 2 x sleep) and the hold ratio (RSS at `ready` ÷ the
    highest RSS until the first wait could end; ≥ 0.95 when `ready` came with every task waiting),
    beside the kind of its program's own `ready` proof (— in rows stored before it was recorded).
    The ratio stored with the run, else computed from its timeline (rows stored before it was)."""
    rows = []
    for record in sorted(records, key=lambda r: (r.variant, r.n, r.repeat)):
        r = record.result
        if record.verdict != "valid" or r is None or r.ready_s is None or not record.sleep_s:
            continue
        ratio = record.hold_ratio
        if ratio is None:
            until = hold_window_end(record.resolved_workload.holds_after_ready, r.ready_s, record.sleep_s)
            ratio = hold_ratio(timelines.get(str(record.run_id), []), r.ready_s, until)
        timing = timing_proves_overlap(r.wall_s, record.sleep_s)
        held = "—" if ratio is None else f"{ratio:.2f}" + ("" if ratio >= HELD else " (grew)")
        rows.append(
            f"{record.variant:<20} {record.n:>10,} {r.ready_s:>8.2f} {r.wall_s:>8.1f} {record.sleep_s:>6g} "
            f"{'wall < 2×sleep' if timing else 'ready only':<15} {record.proof or '—':<15} {held}"
        )
    if not rows:
        return []
    head = (
        f"{'variant':<20} {'N':>10} {'ready s':>8} {'wall s':>8} {'sleep':>6} {'overlap proof':<15} "
        f"{'ready proof':<15} hold"
    )
    return [head, *rows]


def sweep_failures(out: Any, sweep_id: str) -> list[str]:
    """The end-of-sweep summary of a results directory (runner.results.ResultsDir): each cell of
    this sweep without a figure, its cause, and the `memrun inspect` command that tells its story."""
    from runner.results import ResultsError

    try:
        rows = [RunRecord.from_json(row) for row in out.existing_rows() if row.get("sweep_id") == sweep_id]
    except (KeyError, TypeError, ResultsError):
        return []
    return sweep_summary(rows, out.path)


def sweep_ended(end: dict[str, Any], out: Any) -> list[str]:
    """What `memrun sweep` prints when it is done: the cells, its time against the programs' own,
    where the results are and what to run next, then every cell without a figure (sweep_failures)."""
    ratio = end["total_wall_s"] / end["programs_wall_s"] if end["programs_wall_s"] else float("nan")
    done = (
        f"done: {end['cells_run']} cell(s) in {end['total_wall_s']:.0f} s "
        f"(programs' own wall time {end['programs_wall_s']:.0f} s, ratio {ratio:.3f}); "
        f"results in {out.path}; next: memrun report {out.path}  /  memrun plot {out.path}"
    )
    return [done, *sweep_failures(out, end["sweep_id"])]


def write_failed(e: Any, out: Any) -> str:
    """A sweep stopped by a failed append (runner.results.ResultsWriteError: a full disk): what is
    kept, and how to go on."""
    n = out.runs_added
    kept = "no run had finished" if not n else f"the {n} finished run{'s are' if n > 1 else ' is'} kept"
    return f"sweep stopped: {e}; {kept}; {e.remedy}, then run the same command with --resume"
