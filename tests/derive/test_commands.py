"""runner.derive.commands: a plan's or a block's command is parsed as its click command parses it
(every option, default, flag and repeatable option the same), and what derive cannot make is one
line naming it."""

from __future__ import annotations

import argparse

import click
import pytest

from runner.cli.app import load_commands, main
from runner.derive.commands import MADE, CommandError, output, parsers

# Where derive's parser knowingly differs from the command's: report's --workload left out is
# None, which the command tells apart from the default given (the HTML page of every workload).
KNOWN = {("report", "--workload"): (None, "sleep")}


def _click_command(name: str) -> click.Command:
    words = name.split()
    load_commands([words[0]])
    command = main.commands[words[0]]
    for word in words[1:]:
        assert isinstance(command, click.Group)
        command = command.commands[word]
    return command


def _click_side(command: click.Command) -> tuple[dict, list]:
    options, arguments = {}, []
    ctx = click.Context(command)
    for p in command.params:
        if isinstance(p, click.Argument):
            arguments.append("*" if p.nargs == -1 else ("?" if not p.required else None))
        elif isinstance(p, click.Option) and "--help" not in p.opts:
            default = p.get_default(ctx, call=False)  # a repeatable option's: click's own "unset"
            if p.multiple and (not isinstance(default, tuple | list) or not default):
                default = None
            kind = "flag" if p.is_flag else "many" if p.multiple else "one"
            for opt in p.opts + p.secondary_opts:
                options[opt] = (kind, default, p.required, getattr(p.type, "choices", None))
    return options, arguments


def _derive_side(parser: argparse.ArgumentParser) -> tuple[dict, list]:
    options, arguments = {}, []
    for a in parser._actions:
        if not a.option_strings:
            arguments.append(a.nargs)
            continue
        kind = {argparse._StoreTrueAction: "flag", argparse._AppendAction: "many"}.get(type(a), "one")
        default = None if kind == "many" and not a.default else a.default
        for opt in a.option_strings:
            options[opt] = (kind, default, a.required, a.choices)
    return options, arguments


@pytest.mark.parametrize("name", sorted(MADE))
def test_each_command_is_parsed_with_its_click_commands_options_and_defaults(name):
    theirs, their_arguments = _click_side(_click_command(name))
    mine, my_arguments = _derive_side(parsers()[name])
    assert my_arguments == their_arguments
    assert set(mine) == set(theirs)
    for opt, (kind, default, required, choices) in mine.items():
        their_kind, their_default, their_required, their_choices = theirs[opt]
        assert (kind, required) == (their_kind, their_required), opt
        assert (default, their_default) == KNOWN.get((name, opt), (their_default, their_default)), opt
        if choices is not None:
            assert list(choices) == list(their_choices), opt


def test_a_command_derive_does_not_make_or_words_it_refuses_are_one_line():
    with pytest.raises(CommandError, match=r"^memrun sweep: not a command that memrun derive makes"):
        output(["sweep", "-r", "go"])
    with pytest.raises(CommandError, match=r"^memrun derive: not a command"):
        output(["derive"])
    with pytest.raises(CommandError, match=r"^memrun report: unrecognized arguments: --bogus$"):
        output(["report", "plots/data", "--bogus"])
    with pytest.raises(CommandError, match=r"^memrun derive value: argument --show: invalid choice"):
        output(["derive", "value", "plots/data", "runs", "--show", "all"])
    with pytest.raises(CommandError, match=r"^memrun derive table: the following arguments are required"):
        output(["derive", "table", "--from", "a=plots/data"])


def test_what_the_library_refuses_is_its_message(tmp_path):
    with pytest.raises(CommandError, match=r"no such file or directory|nowhere"):
        output(["report", str(tmp_path / "nowhere")])
    with pytest.raises(CommandError, match=r"^--format bmf: a file for another tool, never a derived file$"):
        output(["report", "plots/data", "--format", "bmf"])
