"""The manifest's version axis: `[versions.NAME]` tables, read into typed records and checked.

A runtime's version (Go through GOTOOLCHAIN, Node as an npm package) or a library's (a crate pinned
in a copy of Cargo.lock, a PyPI or Maven version) is runtime knowledge, so how to list, fetch and
use one lives in the folder's task.toml, never in the runner: `memrun sweep --version NAME=V` and
`memrun bisect` only read these tables (tasks/README.md, "Versions").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.tasks.proof import Proof, ProofError
from runner.tasks.proof import read as read_proof
from runner.tasks.template import TemplateError, check

# Placeholders a version table's commands may use besides the folder's tools and places.
VERSION_NAMES = {"version", "version_minor", "version_major", "version_dir", "version_path", "dir", "build"}
_KEYS = {
    "what",
    "variants",
    "list",
    "list_regex",
    "tool",
    "install",
    "tools",
    "env",
    "reports",
    "presets",
    "before",
}
_BEFORE_KEYS = {"version", "run", "build", "outputs", "reason", "proof"}
_PRESET = re.compile(r"^[a-z][a-z0-9-]*$")


class VersionSpecError(ValueError):
    """A [versions.NAME] table is wrong; the message names the manifest and the key."""


@dataclass(frozen=True)
class Before:
    """What changes for versions older than `version`: a program that an old runtime can run
    (Node 12 has neither node:timers/promises nor top-level await), and why."""

    version: str
    run: list[str] | None  # replaces the variants' run
    build: list[list[str]] | None  # replaces the commands of every [[build]]
    reason: str
    outputs: list[str] | None = None  # replaces the outputs of every [[build]] (a program it cannot build)
    proof: Proof | None = None  # the replacing program's `ready` proof: required with `run`


@dataclass(frozen=True)
class VersionSpec:
    """How one thing's version is chosen: where the versions are listed, how one is installed
    into its own build folder, and how the build and the runs then use it."""

    name: str  # NAME in `--version NAME=V1,V2`
    what: str  # one line for messages: "the Go toolchain (GOTOOLCHAIN, from the module proxy)"
    variants: list[str] | None  # the folder's variants it applies to (None: all)
    list: list[str] | None  # a command printing every version the registry has
    list_regex: str  # each match's group 1 (or whole match) is one version
    tool: str | None  # instead of a registry: every candidate of this tool found on the machine
    install: list[list[str]]  # run in the version's copy of the folder, with the installed tools
    tools: dict[str, str]  # tool -> path for this version (its version is asked again, under env)
    env: dict[str, str]  # for the version's builds, version queries and runs
    reports: str | None  # the tool or library whose recorded version must be the chosen one
    presets: dict[str, str] = field(default_factory=dict)  # named versions: `--versions article`
    before: list[Before] = field(default_factory=list)  # oldest bound first

    def applies_to(self, variant: str) -> bool:
        return self.variants is None or variant in self.variants


def _strs(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise VersionSpecError(f"{where} must be a list of strings")
    return list(value)


def _commands(value: object, where: str) -> list[list[str]]:
    if not isinstance(value, list):
        raise VersionSpecError(f"{where} must be a list of commands")
    out = [_strs(c, where) for c in value]
    if any(not c for c in out):
        raise VersionSpecError(f"{where}: a command is empty")
    return out


def _table(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise VersionSpecError(f"{where} must be a table of strings")
    return dict(value)


def _before(value: object, where: str) -> list[Before]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise VersionSpecError(f"{where} must be an array of tables ([[versions.NAME.before]])")
    out = []
    for i, spec in enumerate(value):
        here = f"{where}[{i}]"
        if unknown := set(spec) - _BEFORE_KEYS:
            raise VersionSpecError(f"{here}: unknown key(s) {', '.join(sorted(unknown))}")
        version, reason = spec.get("version"), spec.get("reason")
        if not isinstance(version, str) or not re.fullmatch(r"\d+(?:\.\d+)*", version):
            raise VersionSpecError(f'{here}.version must be a version such as "16" or "1.21.0"')
        if not isinstance(reason, str) or not reason.strip():
            raise VersionSpecError(f"{here}.reason is required: it is recorded in every run it changes")
        run = _strs(spec["run"], f"{here}.run") if "run" in spec else None
        build = _commands(spec["build"], f"{here}.build") if "build" in spec else None
        if run is None and build is None:
            raise VersionSpecError(f"{here}: give run, build or both")
        outputs = _strs(spec["outputs"], f"{here}.outputs") if "outputs" in spec else None
        proof = None
        if run is not None or "proof" in spec:
            try:
                proof = read_proof(spec.get("proof"), f"{here}.proof")
            except ProofError as e:
                raise VersionSpecError(f"{e} (a `run` replaces the program, whose proof it states)") from None
        out.append(Before(version, run, build, " ".join(reason.split()), outputs, proof))
    return sorted(out, key=lambda b: tuple(int(x) for x in b.version.split(".")))


def parse(name: str, spec: object, tools: set[str], variants: set[str], known_names: set[str]) -> VersionSpec:
    """One [versions.NAME] table. `tools` and `variants` are the folder's; `known_names` the
    placeholders every command may use (runner.tasks.manifest.COMMAND_NAMES)."""
    where = f"versions.{name}"
    if not isinstance(spec, dict):
        raise VersionSpecError(f"[{where}] must be a table")
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        raise VersionSpecError(f"[{where}]: the name must be lower-case letters, digits, - or _")
    if unknown := set(spec) - _KEYS:
        raise VersionSpecError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    what = spec.get("what")
    if not isinstance(what, str) or not what.strip():
        raise VersionSpecError(f"{where}.what is required: one line saying what is chosen")
    listing = _strs(spec["list"], f"{where}.list") if "list" in spec else None
    tool = spec.get("tool")
    if (listing is None) == (tool is None):
        raise VersionSpecError(f"{where}: give either list (a registry) or tool (found on this machine)")
    if tool is not None and tool not in tools:
        raise VersionSpecError(f"{where}.tool {tool!r} is not a [tools] entry of this folder")
    regex = spec.get("list_regex", r"(\d+(?:\.\d+)+)")
    try:
        re.compile(regex)
    except (re.error, TypeError) as e:
        raise VersionSpecError(f"{where}.list_regex: {e}") from None
    chosen_variants = _strs(spec["variants"], f"{where}.variants") if "variants" in spec else None
    if chosen_variants is not None and (unknown := set(chosen_variants) - variants):
        raise VersionSpecError(f"{where}.variants: no variant {', '.join(sorted(unknown))} in this folder")
    override = _table(spec.get("tools", {}), f"{where}.tools")
    if unknown := set(override) - tools:
        raise VersionSpecError(f"{where}.tools: {', '.join(sorted(unknown))} not in this folder's [tools]")
    presets = _table(spec.get("presets", {}), f"{where}.presets")
    for preset in presets:
        if not _PRESET.match(preset):
            raise VersionSpecError(f"{where}.presets: {preset!r} must be lower-case letters, digits or -")
    out = VersionSpec(
        name=name,
        what=" ".join(what.split()),
        variants=chosen_variants,
        list=listing,
        list_regex=regex,
        tool=tool,
        install=_commands(spec.get("install", []), f"{where}.install"),
        tools=override,
        env=_table(spec.get("env", {}), f"{where}.env"),
        reports=str(spec["reports"]) if "reports" in spec else None,
        presets=presets,
        before=_before(spec.get("before", []), f"{where}.before"),
    )
    _check_placeholders(out, known_names | tools | VERSION_NAMES, where)
    return out


def _check_placeholders(spec: VersionSpec, names: set[str], where: str) -> None:
    texts: list[str] = [*(spec.list or []), *spec.tools.values(), *spec.env.values()]
    texts += [a for c in spec.install for a in c]
    for b in spec.before:
        texts += [*(b.run or []), *(a for c in b.build or [] for a in c), *(b.outputs or [])]
    for text in texts:
        try:
            check(text, names)
        except TemplateError as e:
            raise VersionSpecError(f"{where}: {e}") from None


def parse_all(
    data: Any, tools: set[str], variants: set[str], known_names: set[str], path: Path
) -> dict[str, VersionSpec]:
    """Every [versions.NAME] of a manifest; a mistake is a VersionSpecError naming the file."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise VersionSpecError(f"{path}: [versions] must hold tables ([versions.NAME])")
    try:
        return {name: parse(name, spec, tools, variants, known_names) for name, spec in data.items()}
    except VersionSpecError as e:
        raise VersionSpecError(f"{path}: {e}") from None
