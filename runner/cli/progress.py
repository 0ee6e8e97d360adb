"""Progress for long sweeps: a line per finished cell with ETA, and on a TTY a live status line:
each run in flight and its phase (spawning, holding, ending), and the next waiting run and why it
waits (memory, limits, a spawn that would meet a wake), as hyperfine shows what runs."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

import click

from runner.cli.app import err
from runner.measure import Sample
from runner.results.record import RunRecord
from runner.sweep import Cell, Progress
from runner.units import MB
from runner.workload import get as get_workload


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(seconds)
    return (
        f"{seconds // 3600}h{seconds // 60 % 60:02d}m"
        if seconds >= 3600
        else f"{seconds // 60}m{seconds % 60:02d}s"
    )


PHASES = {"spawn": "spawning", "hold": "holding", "end": "ending"}


class SweepPrinter:
    """Called from the sweep's lanes (one thread each) and its scheduler: everything under a lock."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self._live = False
        self._last = 0.0
        self._lock = threading.RLock()
        # (variant, N) -> ((its place "[i/total]", "(sleep S s)"), its latest sample)
        self._runs: dict[tuple[str, int], tuple[tuple[str, str], Sample | None]] = {}
        self._flights: list[tuple[str, str, float | None]] = []  # name, phase, since the fork (s)
        self._next = ""  # the first waiting run, and why it waits

    def progress(self) -> Progress:
        return Progress(
            on_start=self.on_start,
            on_sample=self.on_sample,
            on_row=self.on_row,
            log=self.log,
            on_schedule=self.on_schedule,
        )

    def clear(self) -> None:
        with self._lock:
            if self._live:
                click.echo("\r\033[K", nl=False, err=True)
                self._live = False

    def log(self, line: str) -> None:
        with self._lock:
            self.clear()
            click.echo(line, err=True)

    def on_start(self, cell: Cell, i: int, total: int, sleep: float) -> None:
        held = cell.variant.workload.words.hold
        with self._lock:
            self._runs[(cell.variant.name, cell.n)] = ((f"[{i}/{total}]", f"({held} {sleep:g} s)"), None)
            self._redraw(force=True)

    def on_sample(self, cell: Cell, s: Sample) -> None:
        with self._lock:
            head, _ = self._runs.get((cell.variant.name, cell.n), (("", ""), None))
            self._runs[(cell.variant.name, cell.n)] = (head, s)
            self._redraw()

    def on_schedule(self, scheduler: Any) -> None:
        """The scheduler's state (called under its lock): its flights and the next waiting run."""
        now = scheduler.clock()
        flights = [
            (f.plan.name, f.phase, None if f.t_fork is None else now - f.t_fork)
            for f in scheduler.flights.values()
        ]
        waiting = sorted(scheduler.waiting.values(), key=lambda w: w[0])
        nxt = ""
        if waiting:
            plan = waiting[0][1]
            nxt = f"next {plan.name}: {scheduler.why.get(plan.run_id, 'its turn')}"
        with self._lock:
            self._flights, self._next = flights, nxt
            self._redraw()

    def _status(self) -> str:
        """One run: its place, its name, its sleep and its latest sample, as before there were
        several. Several: each with its phase, then the next waiting run and why it waits."""
        if len(self._flights) <= 1 and len(self._runs) == 1:
            (variant, n), (head, s) = next(iter(self._runs.items()))
            place, held = head
            figures = f" {s.t:5.1f} s  RSS {s.rss / MB:,.1f} MB  threads {s.threads:,}" if s else " starting"
            return f"{place} {variant} N={n:,} {held}{figures}"
        runs = [
            f"{name} {PHASES.get(phase, phase)}" + (f" {t:.0f} s" if t is not None else "")
            for name, phase, t in self._flights
        ] or [f"{variant} N={n:,} starting" for variant, n in self._runs]
        text = f"[{len(runs)} in flight] " + " · ".join(runs)
        return text + (f" · {self._next}" if self._next else "")

    def _redraw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not self.tty or not self._runs or (not force and now - self._last < 0.5):
            return
        self._last = now
        click.echo("\r\033[K" + self._status()[:150], nl=False, err=True)
        self._live = True

    def on_row(self, record: RunRecord, i: int, total: int, eta: float | None) -> None:
        with self._lock:
            self._runs.pop((record.variant, record.n), None)
            self._row(record, i, total, eta)

    def _row(self, record: RunRecord, i: int, total: int, eta: float | None) -> None:
        self.clear()
        r = record.result
        valid = record.verdict == "valid"
        figure = f"{r.peak_rss / MB:9,.1f} MB" if r is not None and valid else f"{'-':>12}"
        ready = get_workload(record.workload).progress(record)
        detail = "" if valid else f"  {record.reason}"
        done = round(10 * i / total)
        click.echo(
            f"[{'#' * done}{'.' * (10 - done)}] {i:>{len(str(total))}}/{total} "
            f"{record.variant:<15} N={record.n:>10,} {figure}  "
            f"{record.verdict:<7} ({ready}, wall {r.wall_s if r else 0:.1f} s)  "
            f"ETA {_duration(eta)}{detail}"
        )


def capacity_progress():  # type: ignore[no-untyped-def]
    """The search's progress on stderr: each probe, then each (variant, budget) answer with its cost."""
    from runner.capacity import CapacityProgress
    from runner.show.tables.capacity import band_text, budget_label, cost_line
    from runner.workload import get

    def on_probe(variant: str, budget: int, record, ok: bool) -> None:  # type: ignore[no-untyped-def]
        what = (
            ("fits, exit stalled: stopped" if record.code == "exit-stalled" else "valid")
            if ok
            else (f"{record.verdict}: {record.reason}")
        )
        err(f"  {variant} in {budget_label(budget)}: N={record.n:,} {what}"[:160])

    def on_result(result, i: int, total: int) -> None:  # type: ignore[no-untyped-def]
        row = result.to_json()
        band = band_text(row)
        then = f"then {result.stopped_by}" if result.stopped_by else "none failed up to the ceiling"
        err(
            f"[{i}/{total}] {result.variant} in {budget_label(result.budget_bytes)}: "
            f"{result.max_n:,} {get(result.workload).words.noun} fit{'; ' + band if band else ''} "
            f"({result.probes} probes, {result.evidence_runs} runs in all, {result.passed_at_max} fitted "
            f"at max N; {then}; {cost_line(row)})"
        )

    return CapacityProgress(on_probe=on_probe, on_result=on_result, log=err)
