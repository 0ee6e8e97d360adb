"""The manifest schema: tasks/*/task.toml read into typed records, checked at load time.

Everything runtime-specific lives in the manifests (how to find, install and build a toolchain, how
to run the program, which OS resources each task needs, and what the runtime prints when it fails),
so adding a runtime means adding a folder. A manifest mistake is a ManifestError naming the file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from runner.paths import BUILD_DIR, TASKS_DIR
from runner.tasks.books import Books, read_books
from runner.tasks.parse import FAILURE_MEANINGS as FAILURE_MEANINGS  # re-exported: the schema's names
from runner.tasks.parse import FAILURE_NAMES as FAILURE_NAMES
from runner.tasks.parse import PER_TASK_KEYS as PER_TASK_KEYS
from runner.tasks.parse import Failure as Failure
from runner.tasks.parse import ManifestError as ManifestError
from runner.tasks.parse import Rule as Rule
from runner.tasks.parse import WorkloadSpec as WorkloadSpec
from runner.tasks.parse import (
    read_failures,
    read_model,
    read_per_task,
    read_rules,
    read_str_map,
    read_strs,
    read_text,
    read_workloads,
)
from runner.tasks.proof import Proof, ProofError
from runner.tasks.proof import read as read_proof
from runner.tasks.schema import check as check_schema
from runner.tasks.template import TemplateError, check
from runner.tasks.versionspec import VersionSpec, VersionSpecError, parse_all
from runner.workload import DEFAULT as DEFAULT_WORKLOAD
from runner.workload import Workload, is_default
from runner.workload import get as get_workload
from runner.workload import names as workload_names

DEFAULT_VERSION_RE = r"(\d+(?:\.\d+)+)"
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
# Names every command may use, besides the folder's tool names.
COMMAND_NAMES = {"n", "sleep", "build", "dir", "python", "python_prefix", "npm_prefix", "maven_repo", "flags"}
# What a program is asked to keep alive (runner.workloads): the default workload (sleep, the
# article's) is every variant's `run`; any other is a [variant.workloads.NAME] table, so a runtime
# gains a workload in its manifest alone.


@dataclass(frozen=True)
class Tool:
    name: str
    find: list[str]
    version: list[str]
    version_regex: str
    min_version: str | None
    optional: bool
    package: str | None = None  # the apt package that provides it (runner.tasks.packages)


@dataclass
class FoundTool:
    name: str
    path: str | None
    version: str | None  # parsed version number
    version_text: str | None  # first line of the version command's output
    problem: str | None  # why it was not found


@dataclass(frozen=True)
class Build:
    name: str
    commands: list[list[str]]
    inputs: list[str]
    outputs: list[str]


@dataclass(frozen=True)
class Library:
    name: str
    file: str
    regex: str


@dataclass
class Variant:
    name: str
    folder: TaskFolder
    run: list[str]
    env: dict[str, str]
    libraries: list[Library]
    when: list[Rule]
    per_task: dict[str, int] = field(default_factory=dict)  # OS resources per task, see runner.limits
    own_failures: list[Failure] = field(default_factory=list)
    own_idiom: str | None = None
    own_spread: str | None = None
    workloads: dict[str, WorkloadSpec] = field(default_factory=dict)  # besides sleep
    # What the program's `ready N` proves ([variant.proof], runner.tasks.proof); under another
    # workload its table's own proof, or None where that workload's protocol proves it otherwise.
    proof: Proof | None = None
    # The workload this record runs (see under()): the object, resolved where the name was read.
    workload: Workload = field(default_factory=lambda: get_workload(DEFAULT_WORKLOAD))
    # A variant at a version chosen on the version axis (runner.tasks.chosen): {NAME: version},
    # and the variant it is a version of; empty and None for the installed build.
    chosen_version: dict[str, str] = field(default_factory=dict)
    version_of: str | None = None
    books: Books | None = None  # [variant.books]: how its runtime is asked for its own books
    model: str | None = None  # how it keeps its tasks (parse.MODELS): the report's groups

    @property
    def has(self) -> tuple[str, ...]:
        """The workloads this variant can run: the default, then its manifest's, in registry order."""
        return tuple(w for w in workload_names() if is_default(w) or w in self.workloads)

    def runs(self, workload: Workload) -> bool:
        """Whether this variant can run the workload (its manifest has it, or it is the default)."""
        return workload.name in self.has

    def under(self, workload: Workload) -> Variant:
        """This variant as it runs `workload`: run, env, flags, per-task needs, idiom and failures
        replaced by the workload's, so the code that runs and diagnoses needs no workload branch.
        KeyError when the manifest has no such workload (callers check runs() first)."""
        if workload is self.workload:
            return self
        if is_default(workload.name):
            raise KeyError(workload.name)  # a workload view never goes back; use the loaded variant
        spec = self.workloads[workload.name]
        return replace(
            self,
            run=spec.run,
            env=self.env if spec.env is None else spec.env,
            when=self.when if spec.when is None else spec.when,
            per_task=self.per_task if spec.per_task is None else spec.per_task,
            own_failures=[*spec.failures, *self.own_failures],
            own_idiom=spec.idiom or self.own_idiom,
            workload=workload,
            proof=spec.proof,
        )

    @property
    def idiom(self) -> str:
        """One line: what this variant's program does (the variant's own, else its folder's)."""
        return self.own_idiom or self.folder.description

    @property
    def spread(self) -> str | None:
        """Why this variant's runs of one cell spread, if its manifest says they do (`spread`):
        `compare` then reports their run-to-run spread instead of hiding it in a median."""
        return self.own_spread or self.folder.spread

    @property
    def family(self) -> str:
        return self.folder.family

    @property
    def failures(self) -> list[Failure]:
        """The variant's own failure patterns first, then its folder's."""
        return [*self.own_failures, *self.folder.failures]


@dataclass
class TaskFolder:
    name: str
    dir: Path
    manifest: Path
    description: str
    family: str  # the runtime's family for grouping figures: "Rust", "JVM", "BEAM", ...
    install: str
    apt: list[str]
    pip: list[str]
    npm: list[str]
    maven: list[str]
    post_install: list[list[str]]
    tools: dict[str, Tool]
    builds: list[Build]
    failures: list[Failure] = field(default_factory=list)
    variants: list[Variant] = field(default_factory=list)
    spread: str | None = None  # [task] spread: why runs of one cell differ (a JVM's heap sizing)
    versions: dict[str, VersionSpec] = field(default_factory=dict)  # [versions.NAME]: the version axis
    chosen: Chosen | None = None  # set only on a folder at a chosen version (runner.tasks.chosen)

    @property
    def build_dir(self) -> Path:
        """build/<folder>/, or the chosen version's own folder: a version never builds over the default."""
        return self.chosen.dir if self.chosen else BUILD_DIR / self.name


@dataclass
class Chosen:
    """What makes a folder a chosen version of itself: its own build folder, the tools as that
    version has them (found and asked for their versions already), the environment its builds and
    runs get, and anything that went wrong installing it (the cells then say so, as rows)."""

    name: str  # NAME of [versions.NAME]
    version: str
    dir: Path  # build/versions/<folder>/<NAME>@<version>
    tools: dict[str, Any]  # tool name -> runner.tasks.toolchain.FoundTool
    env: dict[str, str]
    problems: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- manifests


def load_folder(folder: Path) -> TaskFolder:
    path = folder / "task.toml"
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ManifestError(f"{path}: missing") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ManifestError(f"{path}: not valid TOML: {e}") from None
    check_schema(data, path)
    task = data.get("task")
    if not isinstance(task, dict) or not isinstance(task.get("description"), str):
        raise ManifestError(f"{path}: [task] with a description is required")
    tools: dict[str, Tool] = {}
    for name, spec in (data.get("tools") or {}).items():
        if not isinstance(spec, dict):
            raise ManifestError(f"{path}: [tools.{name}] must be a table")
        regex = spec.get("version_regex", DEFAULT_VERSION_RE)
        try:
            re.compile(regex)
        except re.error as e:
            raise ManifestError(f"{path}: tools.{name}.version_regex: {e}") from None
        tools[name] = Tool(
            name=name,
            find=read_strs(spec.get("find"), f"tools.{name}.find", path),
            version=read_strs(spec.get("version", ["{self}", "--version"]), f"tools.{name}.version", path),
            version_regex=regex,
            min_version=str(spec["min_version"]) if "min_version" in spec else None,
            optional=bool(spec.get("optional", False)),
            package=str(spec["package"]) if "package" in spec else None,
        )
    builds = []
    for i, spec in enumerate(data.get("build") or []):
        commands = spec.get("commands")
        if not isinstance(commands, list) or not commands:
            raise ManifestError(f"{path}: build[{i}].commands must be a non-empty list of commands")
        builds.append(
            Build(
                name=str(spec.get("name", f"build{i}")),
                commands=[read_strs(c, f"build[{i}].commands", path) for c in commands],
                inputs=read_strs(spec.get("inputs", []), f"build[{i}].inputs", path),
                outputs=read_strs(spec.get("outputs", []), f"build[{i}].outputs", path),
            )
        )
    if not builds:
        raise ManifestError(f"{path}: at least one [[build]] is required")
    tf = TaskFolder(
        name=folder.name,
        dir=folder,
        manifest=path,
        description=task["description"],
        family=str(task.get("family", "other")),
        install=str(task.get("install", "")),
        apt=read_strs(task.get("apt", []), "task.apt", path),
        pip=read_strs(task.get("pip", []), "task.pip", path),
        npm=read_strs(task.get("npm", []), "task.npm", path),
        maven=read_strs(task.get("maven", []), "task.maven", path),
        post_install=[read_strs(c, "task.post_install", path) for c in task.get("post_install", [])],
        tools=tools,
        builds=builds,
        failures=read_failures(data.get("failure", []), "failure", path),
        spread=read_text(task.get("spread"), "task.spread", path),
    )
    variants = data.get("variant")
    if not isinstance(variants, list) or not variants:
        raise ManifestError(f"{path}: at least one [[variant]] is required")
    for i, spec in enumerate(variants):
        name = spec.get("name")
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise ManifestError(f"{path}: variant[{i}].name must be lower-case letters, digits, - or _")
        run = read_strs(spec.get("run"), f"variant {name}: run", path)
        if not run:
            raise ManifestError(f"{path}: variant {name}: run is empty")
        rules = read_rules(spec.get("when", []), f"variant {name}: when", path)
        try:
            proof = read_proof(spec.get("proof"), f"variant {name}: proof")
        except ProofError as e:
            raise ManifestError(f"{path}: {e}") from None
        libs = [
            read_library(lib, f"variant {name}: libraries[{j}]", path)
            for j, lib in enumerate(spec.get("libraries", []))
        ]
        tf.variants.append(
            Variant(
                name,
                tf,
                run,
                read_str_map(spec.get("env", {}), f"variant {name}: env", path),
                libs,
                rules,
                read_per_task(spec.get("per_task", {}), f"variant {name}: per_task", path),
                read_failures(spec.get("failure", []), f"variant {name}: failure", path),
                str(spec["idiom"]) if "idiom" in spec else None,
                read_text(spec.get("spread"), f"variant {name}: spread", path),
                read_workloads(spec.get("workloads", {}), f"variant {name}: workloads", path),
                books=read_books(spec.get("books"), f"variant {name}: books", path),
                proof=proof,
                model=read_model(spec.get("model"), f"variant {name}: model", path),
            )
        )
    _check_placeholders(tf)
    try:
        tf.versions = parse_all(
            data.get("versions"), set(tf.tools), {v.name for v in tf.variants}, COMMAND_NAMES, path
        )
    except VersionSpecError as e:
        raise ManifestError(str(e)) from None
    for tool in tf.tools.values():
        if tool.package and tool.package not in tf.apt:
            raise ManifestError(f"{path}: tools.{tool.name}.package {tool.package!r} is not in task.apt")
    return tf


def read_library(spec: dict, where: str, path: Path) -> Library:
    """A [[variant.libraries]] table: name, file and a regex whose group 1 is the version."""
    if missing := [k for k in ("name", "file", "regex") if k not in spec]:
        raise ManifestError(f"{path}: {where} needs {', '.join(missing)}")
    try:
        re.compile(spec["regex"])
    except re.error as e:
        raise ManifestError(f"{path}: {where}.regex: {e}") from None
    return Library(spec["name"], spec["file"], spec["regex"])


def _check_placeholders(tf: TaskFolder) -> None:
    known = {*COMMAND_NAMES, *tf.tools}
    texts: list[str] = []
    texts += [a for c in tf.post_install for a in c]
    for b in tf.builds:
        texts += [a for c in b.commands for a in c] + b.outputs
    own: list[tuple[str, set[str]]] = []  # a workload's commands may also use its own placeholders
    for v in tf.variants:
        texts += v.run + list(v.env.values())
        for r in v.when:
            texts += r.args + list(r.env.values())
        for name, w in v.workloads.items():
            names = known | set(get_workload(name).placeholders)
            own += [(t, names) for t in w.run + list((w.env or {}).values())]
            for r in w.when or []:
                own += [(t, names) for t in r.args + list(r.env.values())]
    for text, names in [*((t, known) for t in texts), *own]:
        try:
            check(text, names)
        except TemplateError as e:
            raise ManifestError(f"{tf.manifest}: {e}") from None


@cache
def load_all(tasks_dir: Path = TASKS_DIR) -> dict[str, Variant]:
    """Every variant by name, from every tasks/*/task.toml."""
    out: dict[str, Variant] = {}
    for folder in sorted(p for p in Path(tasks_dir).iterdir() if (p / "task.toml").exists()):
        tf = load_folder(folder)
        for v in tf.variants:
            if v.name in out:
                raise ManifestError(
                    f"{tf.manifest}: variant {v.name} is also defined in {out[v.name].folder.manifest}"
                )
            out[v.name] = v
    return out


def folders(variants: Iterable[Variant]) -> list[TaskFolder]:
    seen: dict[str, TaskFolder] = {}
    for v in variants:
        seen.setdefault(v.folder.name, v.folder)
    return list(seen.values())
