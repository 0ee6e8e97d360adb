"""runner.cli.campaign_options.command_args: `memrun sweep`'s and `memrun capacity`'s arguments as
their one typed args dataclass. Every option of the command has a field and every field an option
(checked here, not at a user's first call), and a stray or missing one is a TypeError."""

from __future__ import annotations

import dataclasses

import click
import pytest

from runner import workload as workloads
from runner.cli.app import main
from runner.cli.campaign_options import command_args
from runner.cli.capacity_options import CapacityArgs
from runner.cli.sweep_options import SweepArgs

PARAMETERS = {p.name for name in workloads.names() for p in workloads.get(name).parameters}


def _options(command: str) -> set[str]:
    ctx = click.Context(main)
    found = main.get_command(ctx, command)
    assert found is not None
    return {p.name for p in found.params if p.name is not None} - {"help"}


@pytest.mark.parametrize(("command", "args"), [("sweep", SweepArgs), ("capacity", CapacityArgs)])
def test_every_option_has_a_field_and_every_field_an_option(command, args):
    fields = {f.name for f in dataclasses.fields(args)} - {"given"}
    assert _options(command) == fields | PARAMETERS


def test_the_workload_parameters_are_given_apart_and_a_stray_argument_is_a_type_error():
    given = {f.name: None for f in dataclasses.fields(SweepArgs) if f.name != "given"}
    args = command_args(SweepArgs, {**given, "buffer": "4KiB", "rate": None})
    assert args.given == {"buffer": "4KiB", "rate": None} and args.label is None
    with pytest.raises(TypeError, match="SweepArgs has no field lable"):
        command_args(SweepArgs, {**given, "lable": "here"})
    with pytest.raises(TypeError, match="label"):
        command_args(SweepArgs, {k: v for k, v in given.items() if k != "label"})
