"""The sweep's progress on a terminal: one line per finished cell, and a live line that names each
run in flight with its phase and the next waiting run with why it waits."""

from __future__ import annotations

from types import SimpleNamespace

from runner.cli.progress import SweepPrinter
from runner.measure import Sample
from runner.results import RunRecord
from runner.scheduling.admit import HOLDING, SPAWNING, Flight, Plan
from runner.sweep import Cell
from tests.support.runs import VARIANTS, result


def _plan(name: str, n: int) -> Plan:
    return Plan(f"id-{name}", name, n, 1.0, 1 << 20, 0.5, 10.0)


def test_the_live_line_names_each_run_in_flight_and_why_the_next_waits(capsys):
    printer = SweepPrinter()
    printer.tty = True
    go, python = VARIANTS["go"], VARIANTS["python"]
    printer.on_start(Cell(go, 1_000_000, 0), 1, 4, 10.0)
    printer.on_sample(Cell(go, 1_000_000, 0), Sample(3.0, 200 << 20, 5, 1, None))
    assert "[1/4] go N=1,000,000 (sleep 10 s)" in capsys.readouterr().err  # one run: as before
    printer.on_start(Cell(python, 1_000_000, 0), 2, 4, 40.0)
    waiting = _plan("python-trio", 1_000_000)
    scheduler = SimpleNamespace(
        clock=lambda: 112.0,
        flights={
            "a": Flight(_plan("go", 1_000_000), HOLDING, 100.0, 110.0),
            "b": Flight(_plan("python", 1_000_000), SPAWNING, 105.0, 145.0),
        },
        waiting={waiting.run_id: ((1, 0.0, 3), waiting)},
        why={waiting.run_id: "python N=1,000,000 is spawning"},
    )
    printer._last = 0.0
    printer.on_schedule(scheduler)
    line = capsys.readouterr().err.rsplit("\r", 1)[-1]  # (click drops the escape off a terminal)
    assert line.startswith("[2 in flight] go N=1,000,000 holding 12 s · python N=1,000,000 spawning 7 s")
    assert line.endswith("· next python-trio N=1,000,000: python N=1,000,000 is spawning")
    measured = result(peak_rss=2_730_000_000, wall_s=12.6, ready_s=2.3)
    printer.on_row(RunRecord("go", 1_000_000, "valid", result=measured), 1, 4, 95.0)
    row = "1/4 go              N= 1,000,000   2,730.0 MB  valid   (ready 2.3 s, wall 12.6 s)  ETA 1m35s"
    assert row in capsys.readouterr().out
