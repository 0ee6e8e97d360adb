"""What a scheduler hands to the Run, seen without running anything: the Run replaced by one that
records the command and spec it was given and ends at once with a run that went well, and the
executor wrapped so that the Settings a scheduler built are recorded on their way."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from runner import execute as executing
from runner.execute import Execution, Settings
from runner.measure import Command, RunResult, RunSpec, core
from runner.tasks import Variant
from tests.support.runs import result


class RecordedRun:
    """Stands in for runner.measure.run.Run: launch, one step and finish, with nothing run."""

    def __init__(self, command: Command, spec: RunSpec | None = None) -> None:
        self.command, self.spec = command, spec

    def launch(self) -> None:
        pass

    def step(self) -> str:
        return "exited"

    def abandon(self) -> None:
        pass

    def finish(self) -> RunResult:
        """`ready N` at once (the fake program's argv ends with N and the sleep)."""
        return result(ready_n=int(self.command.argv[-2]), ready_s=0.01, wall_s=0.1)


@dataclass
class Handoff:
    """The Settings each run was built with, in order, and the Run each was handed to."""

    built: list[Settings] = field(default_factory=list)
    runs: list[RecordedRun] = field(default_factory=list)


def record(monkeypatch: pytest.MonkeyPatch, *schedulers: object) -> Handoff:
    """Record every run the schedulers' modules (runner.sweep_lane, runner.capacity.probes) make:
    each module's execute() wrapped, the Run replaced."""
    seen = Handoff()

    def run(command: Command, spec: RunSpec | None = None) -> RecordedRun:
        seen.runs.append(RecordedRun(command, spec))
        return seen.runs[-1]

    def execute(variant: Variant, n: int, sleep: float, settings: Settings | None = None) -> Execution:
        assert settings is not None, "a scheduler builds every run's settings"
        seen.built.append(settings)
        return executing.execute(variant, n, sleep, settings)

    monkeypatch.setattr(core, "Run", run)
    for module in schedulers:
        monkeypatch.setattr(module, "execute", execute)
    return seen
