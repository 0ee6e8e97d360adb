"""Every key a task.toml may hold and the type of its value, checked before anything is read.

A manifest is read by several parsers (runner.tasks.parse, .versionspec, .proof), each of which
checks what a value means. Before them, this one walk checks what each value *is*: a number
where a string belongs, a string where a list belongs, a key nobody reads (a typo such as
`min_verison`, which would otherwise be ignored without a word). A mistake is one line naming
the file and the key: `tasks/go/task.toml: task.family must be a string, not an integer (3)`.
The table below is the schema tasks/README.md documents ("task.toml").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from runner.tasks.parse import ManifestError


@dataclass(frozen=True)
class Value:
    """A leaf's type: what a message calls it, and the test (bool is no integer here)."""

    what: str
    ok: Callable[[object], bool]


@dataclass(frozen=True)
class Tables:
    """A table of tables under names the manifest chooses: [tools.NAME], [versions.NAME]."""

    each: Table


@dataclass(frozen=True)
class Array:
    """An array of tables: [[build]], [[variant]], [[failure]]."""

    each: Table


Table = dict[str, Union[Value, "Table", Tables, Array]]


def _strs(v: object) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


STR = Value("a string", lambda v: isinstance(v, str))
INT = Value("an integer", lambda v: type(v) is int)
BOOL = Value("true or false", lambda v: type(v) is bool)
STRS = Value("a list of strings", _strs)
COMMANDS = Value(
    "a list of commands (lists of strings)", lambda v: isinstance(v, list) and all(map(_strs, v))
)
STR_TABLE = Value(
    "a table of strings", lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values())
)
INT_TABLE = Value(
    "a table of integers", lambda v: isinstance(v, dict) and all(type(x) is int for x in v.values())
)

NUMBER = Value("a number", lambda v: type(v) in (int, float))
PROOF: Table = {"kind": STR, "how": STR}
BOOKS: Table = {
    "what": STR,
    "env": STR_TABLE,
    "ask": COMMANDS,
    "signal": STR,
    "wait_s": NUMBER,
    "note": STR,
    "figure": Array({"name": STR, "regex": STR, "unit": STR, "part": STR}),
}
FAILURE: Table = {"pattern": STR, "means": STR, "code": STR, "reason": STR, "remedy": STR}
RULE: Table = {"min_n": INT, "args": STRS, "env": STR_TABLE, "reason": STR}
WORKLOAD: Table = {
    "run": STRS,
    "idiom": STR,
    "env": STR_TABLE,
    "when": Array(RULE),
    "per_task": INT_TABLE,
    "failure": Array(FAILURE),
    "proof": PROOF,
}
MANIFEST: Table = {
    "task": {
        "description": STR,
        "family": STR,
        "install": STR,
        "apt": STRS,
        "pip": STRS,
        "npm": STRS,
        "maven": STRS,
        "post_install": COMMANDS,
        "spread": STR,
    },
    "tools": Tables(
        {
            "find": STRS,
            "version": STRS,
            "version_regex": STR,
            "min_version": STR,
            "optional": BOOL,
            "package": STR,
        }
    ),
    "build": Array({"name": STR, "commands": COMMANDS, "inputs": STRS, "outputs": STRS}),
    "failure": Array(FAILURE),
    "variant": Array(
        {
            "name": STR,
            "idiom": STR,
            "spread": STR,
            "run": STRS,
            "env": STR_TABLE,
            "proof": PROOF,
            "books": BOOKS,
            "model": STR,
            "per_task": INT_TABLE,
            "libraries": Array({"name": STR, "file": STR, "regex": STR}),
            "when": Array(RULE),
            "failure": Array(FAILURE),
            "workloads": Tables(WORKLOAD),
        }
    ),
    "versions": Tables(
        {
            "what": STR,
            "variants": STRS,
            "list": STRS,
            "list_regex": STR,
            "tool": STR,
            "install": COMMANDS,
            "tools": STR_TABLE,
            "env": STR_TABLE,
            "reports": STR,
            "presets": STR_TABLE,
            "before": Array(
                {
                    "version": STR,
                    "run": STRS,
                    "build": COMMANDS,
                    "outputs": STRS,
                    "reason": STR,
                    "proof": PROOF,
                }
            ),
        }
    ),
}


def describe(value: object) -> str:
    """What a value is, for a message: `an integer (3)`, `a table`, `a list`."""
    kinds = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    kind = kinds.get(type(value))
    if kind is not None:
        shown = repr(value)
        return f"{kind} ({shown if len(shown) <= 40 else shown[:37] + '...'})"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    return f"a {type(value).__name__} ({value})"  # TOML's dates and times


def check(data: dict, path: Path) -> None:
    """Every key of a manifest known and of its type, else a ManifestError naming the file and
    the key (one line: the CLI exits 2 with it)."""
    _table(data, MANIFEST, "", path)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _table(data: object, schema: Table, where: str, path: Path) -> None:
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: {where or 'the file'} must be a table, not {describe(data)}")
    for key, value in data.items():
        here = _join(where, key)
        spec = schema.get(key)
        if spec is None:
            known = ", ".join(schema)
            raise ManifestError(f"{path}: {here}: unknown key (known here: {known})")
        _value(value, spec, here, path)


def _value(value: object, spec: Value | Table | Tables | Array, where: str, path: Path) -> None:
    if isinstance(spec, Value):
        if not spec.ok(value):
            raise ManifestError(f"{path}: {where} must be {spec.what}, not {describe(value)}")
    elif isinstance(spec, Tables):
        if not isinstance(value, dict):
            raise ManifestError(f"{path}: {where} must hold tables ([{where}.NAME]), not {describe(value)}")
        for name, each in value.items():
            _table(each, spec.each, f"{where}.{name}", path)
    elif isinstance(spec, Array):
        if not isinstance(value, list):
            raise ManifestError(
                f"{path}: {where} must be an array of tables ([[{where}]]), not {describe(value)}"
            )
        for i, each in enumerate(value):
            name = each.get("name") if isinstance(each, dict) else None
            _table(each, spec.each, f"{where}[{name if isinstance(name, str) else i}]", path)
    else:
        _table(value, spec, where, path)
