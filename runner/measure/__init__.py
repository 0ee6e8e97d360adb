"""One run, measured: the code path every memrun figure comes through."""

from runner.measure.core import measure
from runner.measure.deadlines import Deadlines
from runner.measure.hooks import Watcher
from runner.measure.result import MIB, RunResult, Sample
from runner.measure.run import Cancelled, Run

__all__ = ["MIB", "Cancelled", "Deadlines", "Run", "RunResult", "Sample", "Watcher", "measure"]
