"""Run: one measured run as an object, stepped from outside, its phases seen by watchers."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from runner.measure import Cancelled, Command, Run, RunSpec, Watcher, measure
from runner.measure.hooks import INTERRUPTED
from runner.measure.run import EXITED
from tests.support.process import marker, processes_with

ROOT = Path(__file__).resolve().parents[2]


class Seen(Watcher):
    """Every call, in order, with what the run said at that moment."""

    def __init__(self, stop_after: float | None = None) -> None:
        self.calls: list[tuple[str, float | None]] = []
        self.stop_after = stop_after

    def launched(self, run: Run) -> None:
        self.calls.append(("launched", run.t_fork))

    def held(self, run: Run) -> None:
        self.calls.append(("held", run.ready_s))

    def stepped(self, run: Run):  # type: ignore[no-untyped-def]
        if not self.calls or self.calls[-1][0] != "stepped":
            self.calls.append(("stepped", run.elapsed))
        if self.stop_after is not None and run.elapsed > self.stop_after:
            return INTERRUPTED, "the sweep was interrupted"
        return None

    def finished(self, run: Run) -> None:
        self.calls.append(("finished", None))


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_run_is_launched_stepped_and_finished_and_its_watchers_see_each_phase():
    code = "import time; time.sleep(0.4); print('ready 3', flush=True); time.sleep(0.6)"
    seen = Seen()
    run = Run(Command([sys.executable, "-c", code]), RunSpec(timeout=30, watchers=[seen]))
    run.launch()
    assert run.forked and run.t_fork is not None and run.ready_s is None
    reasons = []
    while (reason := run.step()) is None:
        reasons.append(reason)
    assert reason == EXITED and len(reasons) >= 10
    result = run.finish()
    assert result.ok and result.ready_n == 3 and 0.35 < result.ready_s < 0.6
    kinds = [k for k, _ in seen.calls]
    assert kinds[0] == "launched" and kinds[-1] == "finished"
    assert kinds.count("held") == 1 and kinds.index("held") > kinds.index("stepped")
    held_at = dict(seen.calls)["held"]
    assert held_at is not None and abs(held_at - result.ready_s) < 0.01


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_watcher_stops_a_run_as_ctrl_c_does_and_nothing_of_it_is_left():
    mark = marker()
    code = f"import os, time\nif os.fork() == 0: os.setsid()\ntime.sleep(1000)  # {mark}"
    with pytest.raises(Cancelled):
        measure([sys.executable, "-c", code], timeout=60, watchers=[Seen(stop_after=0.5)])
    assert processes_with(mark) == []


def test_no_function_in_runner_measure_is_over_60_lines():
    long = []
    for path in sorted((ROOT / "runner" / "measure").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > 60:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []
