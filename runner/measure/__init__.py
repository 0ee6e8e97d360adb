"""One run, measured: the code path every memrun figure comes through."""

from runner.measure.core import measure
from runner.measure.result import MIB, RunResult, Sample

__all__ = ["MIB", "RunResult", "Sample", "measure"]
