"""Reading the parts of a task.toml: each table's values checked for their kind, with errors that
name the file and the key; the failure patterns, the N-dependent rules, the per-task needs and
the [variant.workloads.NAME] tables, as the records runner.tasks.manifest assembles a folder from."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from runner.tasks.proof import Proof, ProofError
from runner.tasks.proof import read as read_proof
from runner.tasks.template import TemplateError, check
from runner.workload import DEFAULT as DEFAULT_WORKLOAD
from runner.workload import is_default
from runner.workload import names as workload_names

PER_TASK_KEYS = {"threads", "maps", "stack_kib"}  # [variant.per_task], read by runner.limits
# What a [[failure]] pattern can mean; runner.judge.verdict turns each into a verdict.
FAILURE_MEANINGS = ("thread-limit", "out-of-memory", "runtime-limit", "fd-limit")
# Names a failure's reason and remedy may use, besides arithmetic on them.
FAILURE_NAMES = {"n", "sleep", "threads", "message"}


class ManifestError(ValueError):
    """A task.toml is missing, unreadable or wrong; the message names the file."""


@dataclass(frozen=True)
class Rule:
    min_n: int
    args: list[str]
    env: dict[str, str]
    reason: str


@dataclass(frozen=True)
class Failure:
    """One message a runtime prints when it fails, and what it means (tasks/README.md).

    thread-limit: the OS refused a thread (runner.judge.verdict works out which limit);
    out-of-memory: the runtime ran out of memory; runtime-limit: a limit of the runtime itself,
    with its own reason and remedy (Erlang's process limit and `+P`).
    """

    pattern: re.Pattern[str]
    means: str
    code: str
    reason: str | None  # template: {n} {sleep} {threads} {message}, arithmetic
    remedy: str | None


@dataclass(frozen=True)
class WorkloadSpec:
    """How a variant runs one workload other than sleep: [variant.workloads.NAME].

    Fields left out (None) are the variant's own: its env, N-dependent flags and per-task needs
    apply to every workload unless the table says otherwise. Failures add to the variant's.
    """

    run: list[str]
    idiom: str | None
    env: dict[str, str] | None
    when: list[Rule] | None
    per_task: dict[str, int] | None
    failures: list[Failure]
    # What its `ready N` proves, where its protocol has the program say it (the tick workload's
    # tasks count themselves after their first wake): the same kinds as a sleep program's.
    proof: Proof | None = None


def read_strs(value: object, where: str, path: Path) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"{path}: {where} must be a list of strings")
    return list(value)


def read_str_map(value: object, where: str, path: Path) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ManifestError(f"{path}: {where} must be a table of strings")
    return dict(value)


def read_text(value: object, where: str, path: Path) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ManifestError(f"{path}: {where} must be a non-empty string")
    return value.strip()


# How a variant keeps its tasks, the rows of a report's runtimes table: a thread of the OS per
# task; a runtime's own thread, process or fiber with its own stack (goroutines, BEAM processes,
# virtual threads, greenlets); or a task of an event loop (a future, a promise, a coroutine).
MODELS = ("os-threads", "green-threads", "async")


def read_model(value: object, where: str, path: Path) -> str:
    """A variant's `model`: required, since the report groups its runtimes by it."""
    if value is None:
        raise ManifestError(f"{path}: {where} is required (one of {', '.join(MODELS)})")
    if value not in MODELS:
        raise ManifestError(f"{path}: {where} must be one of {', '.join(MODELS)}")
    return str(value)


def read_per_task(value: object, where: str, path: Path) -> dict[str, int]:
    if not isinstance(value, dict) or not all(type(v) is int and v >= 0 for v in value.values()):
        raise ManifestError(f"{path}: {where} must be a table of non-negative integers")
    if unknown := set(value) - PER_TASK_KEYS:
        raise ManifestError(f"{path}: {where}: unknown key(s) {', '.join(sorted(unknown))}")
    return dict(value)


def read_failures(value: object, where: str, path: Path) -> list[Failure]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ManifestError(f"{path}: {where} must be an array of tables ([[failure]])")
    out = []
    for i, spec in enumerate(value):
        here = f"{where}[{i}]"
        means = spec.get("means")
        if means not in FAILURE_MEANINGS:
            raise ManifestError(f"{path}: {here}.means must be one of {', '.join(FAILURE_MEANINGS)}")
        try:
            pattern = re.compile(str(spec.get("pattern", "")))
        except re.error as e:
            raise ManifestError(f"{path}: {here}.pattern: {e}") from None
        if not pattern.pattern:
            raise ManifestError(f"{path}: {here}.pattern is required")
        reason, remedy = spec.get("reason"), spec.get("remedy")
        if means == "runtime-limit" and not (isinstance(reason, str) and isinstance(remedy, str)):
            raise ManifestError(f"{path}: {here}: a runtime-limit needs a reason and a remedy")
        for text in (reason, remedy):
            if text is not None:
                try:
                    check(str(text), FAILURE_NAMES)
                except TemplateError as e:
                    raise ManifestError(f"{path}: {here}: {e}") from None
        code = str(spec.get("code", means))
        out.append(Failure(pattern, means, code, reason, remedy))
    return out


def read_rules(value: object, where: str, path: Path) -> list[Rule]:
    if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        raise ManifestError(f"{path}: {where} must be an array of tables")
    return [
        Rule(
            min_n=_read_min_n(r.get("min_n", 0), f"{where}[{i}].min_n", path),
            args=read_strs(r.get("args", []), f"{where}.args", path),
            env=read_str_map(r.get("env", {}), f"{where}.env", path),
            reason=str(r.get("reason", "")),
        )
        for i, r in enumerate(value)
    ]


def _read_min_n(value: object, where: str, path: Path) -> int:
    """A rule's `min_n`: the N from which it applies, a whole number of tasks, never negative."""
    if type(value) is not int or value < 0:
        raise ManifestError(f"{path}: {where} must be a non-negative integer, not {value!r}")
    return value


def read_workloads(value: object, where: str, path: Path) -> dict[str, WorkloadSpec]:
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise ManifestError(f"{path}: {where} must be tables ([variant.workloads.NAME])")
    out = {}
    for name, spec in value.items():
        here = f"{where}.{name}"
        if name not in workload_names() or is_default(name):
            known = ", ".join(w for w in workload_names() if not is_default(w))
            raise ManifestError(
                f"{path}: {here}: unknown workload (known: {known}; {DEFAULT_WORKLOAD} is `run`)"
            )
        run = read_strs(spec.get("run"), f"{here}.run", path)
        if not run:
            raise ManifestError(f"{path}: {here}.run is empty")
        out[name] = WorkloadSpec(
            run=run,
            idiom=read_text(spec.get("idiom"), f"{here}.idiom", path),
            env=read_str_map(spec["env"], f"{here}.env", path) if "env" in spec else None,
            when=read_rules(spec["when"], f"{here}.when", path) if "when" in spec else None,
            per_task=read_per_task(spec["per_task"], f"{here}.per_task", path)
            if "per_task" in spec
            else None,
            failures=read_failures(spec.get("failure", []), f"{here}.failure", path),
            proof=_workload_proof(spec, here, path),
        )
    return out


def _workload_proof(spec: dict, here: str, path: Path) -> Proof | None:
    """A workload table's `proof`, read as a sleep program's is (None where it has none)."""
    if "proof" not in spec:
        return None
    try:
        return read_proof(spec["proof"], f"{here}.proof")
    except ProofError as e:
        raise ManifestError(f"{path}: {e}") from None
