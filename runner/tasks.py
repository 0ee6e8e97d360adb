"""Task programs: discover tasks/*/task.toml, find their toolchains, build them, make run commands.

Everything runtime-specific lives in the manifests, so adding a runtime means adding a folder.
A manifest mistake is reported as ManifestError naming the file and the problem.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from runner.paths import BUILD_DIR, TASKS_DIR

PLACEHOLDER = re.compile(r"\{(\w+)\}")
DEFAULT_VERSION_RE = r"(\d+(?:\.\d+)+)"
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
PER_TASK_KEYS = {"threads", "maps", "stack_kib"}  # [variant.per_task], read by runner.limits


class ManifestError(ValueError):
    """A task.toml is missing, unreadable or wrong; the message names the file."""


class BuildError(RuntimeError):
    """A build command failed; carries the variant names and the compiler's output."""

    def __init__(self, folder: str, variants: list[str], command: list[str], output: str) -> None:
        self.folder, self.variants, self.command, self.output = folder, variants, command, output
        super().__init__(
            f"build of {', '.join(variants)} failed: {' '.join(command)}\n{output.strip()[-4000:]}"
        )


@dataclass(frozen=True)
class Tool:
    name: str
    find: list[str]
    version: list[str]
    version_regex: str
    min_version: str | None
    optional: bool


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
class Rule:
    min_n: int
    args: list[str]
    env: dict[str, str]
    reason: str


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


@dataclass
class TaskFolder:
    name: str
    dir: Path
    manifest: Path
    description: str
    install: str
    apt: list[str]
    pip: list[str]
    post_install: list[list[str]]
    tools: dict[str, Tool]
    builds: list[Build]
    variants: list[Variant] = field(default_factory=list)

    @property
    def build_dir(self) -> Path:
        return BUILD_DIR / self.name


# ---------------------------------------------------------------- manifests


def _strs(value: object, where: str, path: Path) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"{path}: {where} must be a list of strings")
    return list(value)


def _str_map(value: object, where: str, path: Path) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ManifestError(f"{path}: {where} must be a table of strings")
    return dict(value)


def _per_task(value: object, where: str, path: Path) -> dict[str, int]:
    if not isinstance(value, dict) or not all(type(v) is int and v >= 0 for v in value.values()):
        raise ManifestError(f"{path}: {where} must be a table of non-negative integers")
    if unknown := set(value) - PER_TASK_KEYS:
        raise ManifestError(f"{path}: {where}: unknown key(s) {', '.join(sorted(unknown))}")
    return dict(value)


def load_folder(folder: Path) -> TaskFolder:
    path = folder / "task.toml"
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ManifestError(f"{path}: missing") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ManifestError(f"{path}: not valid TOML: {e}") from None
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
            find=_strs(spec.get("find"), f"tools.{name}.find", path),
            version=_strs(spec.get("version", ["{self}", "--version"]), f"tools.{name}.version", path),
            version_regex=regex,
            min_version=str(spec["min_version"]) if "min_version" in spec else None,
            optional=bool(spec.get("optional", False)),
        )
    builds = []
    for i, spec in enumerate(data.get("build") or []):
        commands = spec.get("commands")
        if not isinstance(commands, list) or not commands:
            raise ManifestError(f"{path}: build[{i}].commands must be a non-empty list of commands")
        builds.append(
            Build(
                name=str(spec.get("name", f"build{i}")),
                commands=[_strs(c, f"build[{i}].commands", path) for c in commands],
                inputs=_strs(spec.get("inputs", []), f"build[{i}].inputs", path),
                outputs=_strs(spec.get("outputs", []), f"build[{i}].outputs", path),
            )
        )
    if not builds:
        raise ManifestError(f"{path}: at least one [[build]] is required")
    tf = TaskFolder(
        name=folder.name,
        dir=folder,
        manifest=path,
        description=task["description"],
        install=str(task.get("install", "")),
        apt=_strs(task.get("apt", []), "task.apt", path),
        pip=_strs(task.get("pip", []), "task.pip", path),
        post_install=[_strs(c, "task.post_install", path) for c in task.get("post_install", [])],
        tools=tools,
        builds=builds,
    )
    variants = data.get("variant")
    if not isinstance(variants, list) or not variants:
        raise ManifestError(f"{path}: at least one [[variant]] is required")
    for i, spec in enumerate(variants):
        name = spec.get("name")
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise ManifestError(f"{path}: variant[{i}].name must be lower-case letters, digits, - or _")
        run = _strs(spec.get("run"), f"variant {name}: run", path)
        if not run:
            raise ManifestError(f"{path}: variant {name}: run is empty")
        rules = [
            Rule(
                min_n=int(r.get("min_n", 0)),
                args=_strs(r.get("args", []), f"variant {name}: when.args", path),
                env=_str_map(r.get("env", {}), f"variant {name}: when.env", path),
                reason=str(r.get("reason", "")),
            )
            for r in spec.get("when", [])
        ]
        libs = [
            Library(str(lib["name"]), str(lib["file"]), str(lib["regex"]))
            for lib in spec.get("libraries", [])
        ]
        tf.variants.append(
            Variant(
                name,
                tf,
                run,
                _str_map(spec.get("env", {}), f"variant {name}: env", path),
                libs,
                rules,
                _per_task(spec.get("per_task", {}), f"variant {name}: per_task", path),
            )
        )
    _check_placeholders(tf)
    return tf


def _check_placeholders(tf: TaskFolder) -> None:
    known = {"n", "sleep", "build", "dir", "n_plus_64k", "python", "python_prefix", "flags", *tf.tools}
    texts: list[str] = []
    texts += [a for c in tf.post_install for a in c]
    for b in tf.builds:
        texts += [a for c in b.commands for a in c] + b.outputs
    for v in tf.variants:
        texts += v.run + list(v.env.values())
        for r in v.when:
            texts += r.args + list(r.env.values())
    for text in texts:
        for name in PLACEHOLDER.findall(text):
            if name not in known:
                raise ManifestError(f"{tf.manifest}: unknown placeholder {{{name}}} in {text!r}")


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


# ---------------------------------------------------------------- toolchains


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:4])


def expand_python(text: str) -> str:
    """{python} and {python_prefix}: the interpreter running memrun, so pip installs land beside it."""
    return text.replace("{python}", sys.executable).replace("{python_prefix}", sys.prefix)


def _candidates(pattern: str) -> list[str]:
    pattern = expand_python(pattern)
    expanded = os.path.expandvars(pattern)
    if "$" in expanded:
        return []
    if any(ch in expanded for ch in "*?["):
        return sorted(glob.glob(expanded))
    if "/" not in expanded:
        found = shutil.which(expanded)
        return [found] if found else []
    return [expanded]


def find_tool(tool: Tool) -> FoundTool:
    """The first candidate that runs and is new enough, else a problem that says what was seen."""
    seen: list[str] = []
    for pattern in tool.find:
        for path in _candidates(pattern):
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                continue
            argv = [path if a == "{self}" else a for a in tool.version]
            try:
                proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            except (OSError, subprocess.TimeoutExpired) as e:
                seen.append(f"{path}: {e}")
                continue
            text = (proc.stdout + "\n" + proc.stderr).strip()
            m = re.search(tool.version_regex, text)
            if proc.returncode != 0 or not m:
                seen.append(f"{path}: version not recognised")
                continue
            version = m.group(1) if m.groups() else m.group(0)
            if tool.min_version and _version_tuple(version) < _version_tuple(tool.min_version):
                seen.append(f"{path} is {version}")
                continue
            first = next((line for line in text.splitlines() if version in line), version)
            return FoundTool(tool.name, path, version, first.strip(), None)
    need = f" >= {tool.min_version}" if tool.min_version else ""
    looked = f"looked for {', '.join(tool.find)}"
    problem = f"{tool.name}{need} not found ({looked}" + (f"; saw: {'; '.join(seen)})" if seen else ")")
    return FoundTool(tool.name, None, None, None, problem)


@cache
def resolve(folder_name: str, tasks_dir: Path = TASKS_DIR) -> dict[str, FoundTool]:
    tf = next(v.folder for v in load_all(tasks_dir).values() if v.folder.name == folder_name)
    return {name: find_tool(tool) for name, tool in tf.tools.items()}


def _tools_in(texts: Iterable[str], tools: dict[str, Tool]) -> set[str]:
    return {n for t in texts for n in PLACEHOLDER.findall(t) if n in tools}


@dataclass
class Readiness:
    """Can this variant be built and run here, and how."""

    variant: Variant
    tools: dict[str, FoundTool]
    build: Build | None
    problems: list[str]

    @property
    def usable(self) -> bool:
        return not self.problems

    def versions(self) -> dict[str, str]:
        out = {n: t.version_text for n, t in self.tools.items() if t.version_text}
        out.update(library_versions(self.variant))
        if self.build:
            out["build"] = self.build.name
        return out


def readiness(variant: Variant) -> Readiness:
    tf = variant.folder
    tools = resolve(tf.name, tf.dir.parent)
    missing = {n for n, t in tools.items() if t.path is None}
    required = {n for n, t in tf.tools.items() if not t.optional}
    run_tools = _tools_in(variant.run + [a for r in variant.when for a in r.args], tf.tools)
    problems = [tools[n].problem or n for n in sorted((required | run_tools) & missing)]
    chosen = None
    for b in tf.builds:
        if not (_tools_in([a for c in b.commands for a in c], tf.tools) & missing):
            chosen = b
            break
    if chosen is None:
        need = sorted(
            {n for b in tf.builds for n in _tools_in([a for c in b.commands for a in c], tf.tools)} & missing
        )
        if not set(need) <= (required | run_tools):
            problems.append("no build alternative is usable: missing " + ", ".join(need))
    return Readiness(variant, tools, chosen, problems)


def library_versions(variant: Variant) -> dict[str, str]:
    out = {}
    for lib in variant.libraries:
        try:
            m = re.search(lib.regex, (variant.folder.dir / lib.file).read_text())
        except OSError:
            m = None
        out[lib.name] = m.group(1) if m else "unknown"
    return out


# ---------------------------------------------------------------- substitution


def _values(
    tf: TaskFolder, tools: dict[str, FoundTool], n: int | None = None, sleep: float | None = None
) -> dict[str, str]:
    values = {n_: t.path for n_, t in tools.items() if t.path}
    values.update(build=str(tf.build_dir), dir=str(tf.dir), python=sys.executable, python_prefix=sys.prefix)
    if n is not None:
        values.update(n=str(n), n_plus_64k=str(n + 65536))
    if sleep is not None:
        values["sleep"] = format_sleep(sleep)
    return values


def format_sleep(sleep: float) -> str:
    return f"{sleep:g}" if sleep != int(sleep) else str(int(sleep))


def _subst(text: str, values: dict[str, str]) -> str:
    def repl(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise ManifestError(f"placeholder {{{m.group(1)}}} has no value here (tool not found?)")
        return values[m.group(1)]

    return PLACEHOLDER.sub(repl, text)


def run_command(variant: Variant, n: int, sleep: float) -> tuple[list[str], dict[str, str], list[str]]:
    """(argv, extra environment, reasons for N-dependent flags) to run variant with N tasks."""
    tf = variant.folder
    values = _values(tf, resolve(tf.name, tf.dir.parent), n, sleep)
    rules = [r for r in variant.when if n >= r.min_n]
    argv: list[str] = []
    for arg in variant.run:
        if arg == "{flags}":
            argv += [_subst(a, values) for r in rules for a in r.args]
        else:
            argv.append(_subst(arg, values))
    env = {k: _subst(v, values) for k, v in variant.env.items()}
    for r in rules:
        env.update({k: _subst(v, values) for k, v in r.env.items()})
    return argv, env, [r.reason for r in rules if r.reason]


# ---------------------------------------------------------------- builds


def _stamp(tf: TaskFolder, build: Build, tools: dict[str, FoundTool]) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([build.name, build.commands, build.outputs]).encode())
    for name in sorted(tools):
        h.update(f"{name}={tools[name].path}:{tools[name].version_text}".encode())
    for rel in sorted(build.inputs):
        base = tf.dir / rel
        files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [base]
        for f in files:
            h.update(str(f.relative_to(tf.dir)).encode())
            h.update(f.read_bytes() if f.exists() else b"<missing>")
    return h.hexdigest()


def _stamp_file(tf: TaskFolder) -> Path:
    return tf.build_dir / ".memrun-stamp"


def is_built(variant: Variant) -> bool:
    r = readiness(variant)
    if r.build is None:
        return False
    tf = variant.folder
    values = _values(tf, r.tools)
    try:
        recorded = _stamp_file(tf).read_text().strip()
    except OSError:
        return False
    outputs_ok = all(Path(_subst(o, values)).exists() for o in r.build.outputs)
    return outputs_ok and recorded == _stamp(tf, r.build, r.tools)


def build(variant: Variant, log: Callable[[str], None] = lambda s: None, force: bool = False) -> bool:
    """Build the variant's folder unless up to date. Returns True when a build ran."""
    r = readiness(variant)
    if not r.usable or r.build is None:
        raise BuildError(variant.folder.name, [variant.name], [], "; ".join(r.problems))
    if not force and is_built(variant):
        return False
    tf = variant.folder
    tf.build_dir.mkdir(parents=True, exist_ok=True)
    _stamp_file(tf).unlink(missing_ok=True)
    values = _values(tf, r.tools)
    names = [v.name for v in tf.variants]
    for command in r.build.commands:
        argv = [_subst(a, values) for a in command]
        log(" ".join(argv))
        try:
            proc = subprocess.run(argv, cwd=tf.dir, capture_output=True, text=True)
        except OSError as e:
            raise BuildError(tf.name, names, argv, str(e)) from None
        if proc.returncode != 0:
            raise BuildError(tf.name, names, argv, proc.stdout + proc.stderr)
    for out in r.build.outputs:
        if not Path(_subst(out, values)).exists():
            raise BuildError(tf.name, names, [], f"expected output {_subst(out, values)} is missing")
    _stamp_file(tf).write_text(_stamp(tf, r.build, r.tools) + "\n")
    return True
