"""One run, measured: the code path every memrun figure comes through."""

from runner.measure.core import measure, measure_command
from runner.measure.deadlines import Deadlines
from runner.measure.hooks import Watcher
from runner.measure.result import MIB, RunResult, Sample
from runner.measure.run import Cancelled, Run
from runner.measure.spec import Command, RunSpec

__all__ = [
    "MIB",
    "Cancelled",
    "Command",
    "Deadlines",
    "Run",
    "RunResult",
    "RunSpec",
    "Sample",
    "Watcher",
    "measure",
    "measure_command",
]
