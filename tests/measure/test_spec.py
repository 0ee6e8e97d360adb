"""runner.measure.spec: what a Run is given, in two typed, frozen parts (the command and the run
spec), kept by the Run as they were given."""

from __future__ import annotations

import dataclasses

import pytest

from runner.measure import Command, Run, RunSpec, cgroups
from runner.measure.cgroups import NoCgroup
from runner.measure.deadlines import Deadlines
from runner.measure.spec import both


def test_a_misspelt_field_is_a_type_error_where_it_is_built():
    with pytest.raises(TypeError, match="timout"):
        RunSpec(timout=3.0)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="nofiles"):
        Command(["prog"], nofiles=1024)  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        RunSpec().timeout = 3.0  # type: ignore[misc]


def test_the_bounds_are_the_specs_timeout_else_the_commands():
    command = Command(["prog"], timeout=94.0)
    assert RunSpec().deadlines(command) == Deadlines(94.0, None, 0.0)
    given = RunSpec(timeout=7.5, ready_by=2.0, timeout_grace=15.0)
    assert given.deadlines(command) == Deadlines(7.5, 2.0, 15.0)
    assert RunSpec().deadlines(Command(["prog"])) == Deadlines()  # unbounded: measure()'s default


def test_the_commands_reader_sees_each_line_before_the_specs():
    seen: list[tuple[str, bytes]] = []
    reader = both(lambda b: seen.append(("command", b)), lambda b: seen.append(("spec", b)))
    assert reader is not None
    reader(b"ready 3\n")
    assert seen == [("command", b"ready 3\n"), ("spec", b"ready 3\n")]
    alone = seen.append
    assert both(None, None) is None
    assert both(alone, None) is alone and both(None, alone) is alone  # type: ignore[arg-type]


def test_a_run_keeps_the_command_and_spec_it_was_given(monkeypatch):
    monkeypatch.setattr(cgroups, "for_run", lambda mode, root=None: NoCgroup("none: nothing is run"))
    command = Command(["prog", "10"], timeout=94.0)
    spec = RunSpec(timeout=3.0, interval=0.02)
    run = Run(command, spec)
    assert run.command is command and run.spec is spec
    assert run.deadlines == Deadlines(3.0, None, 0.0) and run.interval == 0.02
    with pytest.raises(ValueError, match="empty command"):
        Run(Command([]), spec)
