"""Progress for long sweeps: a line per finished cell with ETA, and a live status line on a TTY."""

from __future__ import annotations

import sys
import time

import click

from runner import workload as workloads
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


class SweepPrinter:
    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self._live = False
        self._last = 0.0
        self._status = ""

    def progress(self) -> Progress:
        return Progress(on_start=self.on_start, on_sample=self.on_sample, on_row=self.on_row, log=self.log)

    def clear(self) -> None:
        if self._live:
            click.echo("\r\033[K", nl=False, err=True)
            self._live = False

    def log(self, line: str) -> None:
        self.clear()
        click.echo(line, err=True)

    def on_start(self, cell: Cell, i: int, total: int, sleep: float) -> None:
        held = workloads.get(cell.variant.workload).words.hold
        self._status = f"[{i}/{total}] {cell.variant.name} N={cell.n:,} ({held} {sleep:g} s)"
        self._draw(self._status + " starting")

    def on_sample(self, cell: Cell, s: Sample) -> None:
        now = time.monotonic()
        if now - self._last < 0.5:
            return
        self._last = now
        self._draw(f"{self._status} {s.t:5.1f} s  RSS {s.rss / MB:,.1f} MB  threads {s.threads:,}")

    def _draw(self, text: str) -> None:
        if self.tty:
            click.echo("\r\033[K" + text[:150], nl=False, err=True)
            self._live = True

    def on_row(self, record: RunRecord, i: int, total: int, eta: float | None) -> None:
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
    from runner.results.workloads import noun
    from runner.show.tables.capacity import band_text, budget_label, cost_line

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
            f"{result.max_n:,} {noun(result.workload)} fit{'; ' + band if band else ''} "
            f"({result.probes} probes, {result.evidence_runs} runs in all, {result.passed_at_max} fitted "
            f"at max N; {then}; {cost_line(row)})"
        )

    return CapacityProgress(on_probe=on_probe, on_result=on_result, log=err)
