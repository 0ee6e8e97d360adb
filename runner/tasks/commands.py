"""Concrete commands from manifest templates: the argv and environment of one run or one build."""

from __future__ import annotations

from runner.paths import locations
from runner.tasks.manifest import ManifestError, TaskFolder, Variant
from runner.tasks.template import TemplateError, expand
from runner.tasks.toolchain import FoundTool, tools_of
from runner.units import format_number


def values(
    tf: TaskFolder, tools: dict[str, FoundTool], n: int | None = None, sleep: float | None = None
) -> dict[str, str]:
    """Every placeholder's value for this folder: found tools, places, and N and sleep when known."""
    out = {name: t.path for name, t in tools.items() if t.path}
    out.update(locations(), build=str(tf.build_dir), dir=str(tf.dir))
    if n is not None:
        out["n"] = str(n)
    if sleep is not None:
        out["sleep"] = format_number(sleep)
    return out


def subst(text: str, vals: dict[str, str]) -> str:
    try:
        return expand(text, vals)
    except TemplateError as e:
        raise ManifestError(str(e)) from None


def run_command(
    variant: Variant, n: int, sleep: float, **placeholders: int | str | None
) -> tuple[list[str], dict[str, str], list[str]]:
    """(argv, extra environment, reasons for N-dependent flags) to run variant with N tasks.
    placeholders fill the names a workload's command may use (runner.workload.Workload.placeholders:
    the connections server's `{port}` and `{buffer}`); None leaves one unset."""
    tf = variant.folder
    vals = values(tf, tools_of(tf), n, sleep)
    vals.update({k: str(v) for k, v in placeholders.items() if v is not None})
    rules = [r for r in variant.when if n >= r.min_n]
    argv: list[str] = []
    for arg in variant.run:
        if arg == "{flags}":
            argv += [subst(a, vals) for r in rules for a in r.args]
        else:
            argv.append(subst(arg, vals))
    env = {k: subst(v, vals) for k, v in variant.env.items()}
    for r in rules:
        env.update({k: subst(v, vals) for k, v in r.env.items()})
    return argv, env, [r.reason for r in rules if r.reason]
