"""A workload defined inside a test: registered for the test's length, and the folder of a fake
task program that runs under it (a list of N bytearrays, built and loaded as any task is)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path

from runner import tasks
from runner import workload as workloads
from runner.workload import Workload

MANIFEST = """
[task]
description = "test double: {what}"
install = "nothing to install"

[tools.python]
find = ["{{python}}"]
version = ["{{self}}", "--version"]

[[build]]
name = "py_compile"
commands = [["{{python}}", "-m", "py_compile", "hold.py"]]
inputs = ["hold.py"]

[[variant]]
name = "{name}"
run = ["{{python}}", "{{dir}}/hold.py", "{{n}}", "{{sleep}}"{plain}]
proof = {{ kind = "counter", how = "a fake" }}
model = "async"

[variant.workloads.{workload}]
run = ["{{python}}", "{{dir}}/hold.py", "{{n}}", "{{sleep}}"{under}]
idiom = "a list of N bytearrays"
"""


@contextlib.contextmanager
def registered(workload: Workload) -> Iterator[Workload]:
    """The workload in the registry while the test runs, and gone after it."""
    found = workloads.register(workload)
    try:
        yield found
    finally:
        workloads.unregister(found.name)


def _args(words: Sequence[str]) -> str:
    return "".join(f', "{w}"' for w in words)


def holder(
    tmp_path: Path,
    name: str,
    program: str,
    workload: str,
    what: str,
    plain: Sequence[str] = (),
    under: Sequence[str] = (),
) -> tasks.Variant:
    """The variant `name` of a task folder whose hold.py is `program`, run as `N SLEEP` and the
    words in `plain` (sleep), or in `under` (the test's workload); built, as the sweep builds."""
    folder = tmp_path / "tasks" / name
    folder.mkdir(parents=True)
    (folder / "hold.py").write_text(program)
    manifest = MANIFEST.format(
        what=what, name=name, workload=workload, plain=_args(plain), under=_args(under)
    )
    (folder / "task.toml").write_text(manifest)
    variant = tasks.load_folder(folder).variants[0]
    assert variant.has == ("sleep", workload)
    assert not tasks.build_all([variant], log=lambda line: None)
    return variant
