"""Toolchains: find each tool a manifest names, check its version, and say whether a variant can run.

A tool is found by trying the manifest's candidates in order (PATH names, globs, `$VARS`, and the
places `memrun setup` installs into), running its version command, and comparing with the minimum.
What was seen on the way is kept, so "not found" can say where memrun looked.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from runner.paths import TASKS_DIR, locations
from runner.tasks import packages
from runner.tasks.manifest import Build, TaskFolder, Tool, Variant, load_all
from runner.tasks.template import names_in

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # colour codes some tools print even when piped (mvn)


@dataclass
class FoundTool:
    name: str
    path: str | None
    version: str | None  # parsed version number
    version_text: str | None  # first line of the version command's output
    problem: str | None  # why it was not found


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:4])


def expand_locations(text: str) -> str:
    """{python}, {python_prefix}, {npm_prefix}, {maven_repo}: the places installs land in."""
    for key, value in locations().items():
        text = text.replace("{" + key + "}", value)
    return text


def _candidates(pattern: str) -> list[str]:
    expanded = os.path.expandvars(expand_locations(pattern))
    if "$" in expanded:
        return []
    if any(ch in expanded for ch in "*?["):
        return sorted(glob.glob(expanded))
    if "/" not in expanded:
        found = shutil.which(expanded)
        return [found] if found else []
    return [expanded]


def probe(tool: Tool, path: str, env: dict[str, str] | None = None) -> FoundTool | str:
    """Ask the program at `path` for its version (under `env`, over the inherited environment):
    a FoundTool, or what was seen instead. The minimum version is the caller's business."""
    argv = [path if a == "{self}" else a for a in tool.version]
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=60, env={**os.environ, **env} if env else None
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{path}: {e}"
    text = ANSI.sub("", proc.stdout + "\n" + proc.stderr).strip()
    m = re.search(tool.version_regex, text)
    if proc.returncode != 0 or not m:
        return f"{path}: version not recognised"
    version = m.group(1) if m.groups() else m.group(0)
    first = next((line for line in text.splitlines() if version in line), version)
    return FoundTool(tool.name, path, version, first.strip(), None)


def candidates(tool: Tool) -> list[str]:
    """Every executable the tool's find patterns name here, in order, each once."""
    out: list[str] = []
    for pattern in tool.find:
        for path in _candidates(pattern):
            if os.path.isfile(path) and os.access(path, os.X_OK) and path not in out:
                out.append(path)
    return out


def find_tool(tool: Tool) -> FoundTool:
    """The first candidate that runs and is new enough, else a problem that says what was seen."""
    seen: list[str] = []
    for path in candidates(tool):
        found = probe(tool, path)
        if isinstance(found, str):
            seen.append(found)
            continue
        version = found.version or ""
        if tool.min_version and _version_tuple(version) < _version_tuple(tool.min_version):
            seen.append(f"{path} is {version}")
            continue
        return found
    need = f" >= {tool.min_version}" if tool.min_version else ""
    looked = f"looked for {', '.join(tool.find)}"
    problem = f"{tool.name}{need} not found ({looked}" + (f"; saw: {'; '.join(seen)})" if seen else ")")
    return FoundTool(tool.name, None, None, None, problem)


@cache
def resolve(folder_name: str, tasks_dir: Path = TASKS_DIR) -> dict[str, FoundTool]:
    tf = next(v.folder for v in load_all(tasks_dir).values() if v.folder.name == folder_name)
    return {name: find_tool(tool) for name, tool in tf.tools.items()}


def tools_of(tf: TaskFolder) -> dict[str, FoundTool]:
    """The folder's tools as found here, or as its chosen version has them (runner.tasks.chosen)."""
    if tf.chosen is not None:
        return tf.chosen.tools
    return resolve(tf.name, tf.dir.parent)


def _tools_in(texts: Iterable[str], tools: dict[str, Tool]) -> set[str]:
    return {n for t in texts for n in names_in(t) if n in tools}


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
    tools = tools_of(tf)
    missing = {n for n, t in tools.items() if t.path is None}
    required = {n for n, t in tf.tools.items() if not t.optional}
    run_tools = _tools_in(variant.run + [a for r in variant.when for a in r.args], tf.tools)
    problems = [tools[n].problem or n for n in sorted((required | run_tools) & missing)]
    lacking, _ = packages.missing(tf)
    problems += [f"Debian package {p} not installed (the build needs its files)" for p in lacking]
    if tf.chosen is not None:
        problems += tf.chosen.problems
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
