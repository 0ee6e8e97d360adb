"""runner.cli.app's lazy command group: a command's module is imported when the command is named,
so that `memrun measure` does not import the sweep, the bisection or the VM code (a memrun start in
a TCG guest spent most of its ~7 s importing every command's module); the map of commands to
modules holds every command, and `memrun --help` still lists them all."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys

import runner.cli
from runner.cli import app


def _in_a_fresh_interpreter(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_map_names_every_command_of_every_module():
    """Importing every module of runner.cli registers exactly the commands the map names, each
    from a module the map gives for it (a new command missing from the map would be unreachable)."""
    for module in pkgutil.iter_modules(runner.cli.__path__):
        __import__(f"runner.cli.{module.name}")
    registered = {name: cmd.callback.__module__ for name, cmd in app.main.commands.items()}
    assert set(registered) == set(app.COMMANDS)
    for name, module in registered.items():
        assert module.removeprefix("runner.cli.") in app.COMMANDS[name], (name, module)
    derive = app.main.commands["derive"]
    assert isinstance(derive, app.click.Group)
    subs = {cmd.callback.__module__.removeprefix("runner.cli.") for cmd in derive.commands.values()}
    assert subs == set(app.COMMANDS["derive"])  # the derive group's commands come from both modules


def test_naming_a_command_imports_only_its_module():
    out = _in_a_fresh_interpreter(
        "import sys, click\n"
        "from runner.cli import main\n"
        "ctx = click.Context(main)\n"
        "assert main.get_command(ctx, 'measure') is not None\n"
        "print(sorted(m for m in sys.modules if m.startswith('runner.cli.')))\n"
        "print('runner.sweep' in sys.modules, 'runner.vm.guest' in sys.modules)\n"
    )
    loaded, heavy = out.splitlines()
    commands = {m for ms in app.COMMANDS.values() for m in ms}
    assert {m.removeprefix("runner.cli.") for m in ast.literal_eval(loaded)} & commands == {"measuring"}, (
        loaded
    )
    assert heavy == "False False"


def test_help_lists_every_command_and_a_named_one_runs():
    listed = _in_a_fresh_interpreter(
        "import click\nfrom runner.cli import main\nprint(' '.join(main.list_commands(click.Context(main))))"
    ).split()
    assert listed == sorted(app.COMMANDS)
    done = subprocess.run(
        [sys.executable, "-m", "runner", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and all(f"  {name} " in done.stdout for name in app.COMMANDS), done.stdout
    nope = subprocess.run(
        [sys.executable, "-m", "runner", "nosuch"], capture_output=True, text=True, timeout=60
    )
    assert nope.returncode == 2 and "nosuch" in nope.stderr
