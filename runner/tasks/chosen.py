"""A variant at a chosen version: its folder copied into the version's own build folder, the version
installed there as its manifest says, and a variant (`go@1.22.0`) whose builds and runs use it.

Why a copy: choosing a library version edits files (`cargo update --precise` rewrites Cargo.lock,
`go mod edit` the go line), and the task folder and the default build must stay exactly as they
are. Everything lands in build/versions/<folder>/<NAME>@<version>/: `src/` (the copy) and the
build's outputs, so two versions, or a version and the default, never share a file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from runner.paths import BUILD_DIR, locations
from runner.tasks.manifest import Chosen, Rule, TaskFolder, Variant
from runner.tasks.registry import Listing, key, same
from runner.tasks.template import TemplateError, expand
from runner.tasks.toolchain import FoundTool, library_versions, probe, resolve
from runner.tasks.versionspec import Before, VersionSpec

_MARK = ".memrun-installed"


def version_dir(tf: TaskFolder, spec: VersionSpec, version: str) -> Path:
    return BUILD_DIR / "versions" / tf.name / f"{spec.name}@{version}"


def suffix(tf: TaskFolder, spec: VersionSpec, version: str) -> str:
    """What follows `@` in the variant's name: the version, or NAME-version where another of the
    folder's version tables applies to the same variant (rust-futures has tokio and futures)."""
    for variant in tf.variants:
        if spec.applies_to(variant.name):
            others = [s for s in tf.versions.values() if s is not spec and s.applies_to(variant.name)]
            if others:
                return f"{spec.name}-{version}"
    return version


def _version_values(spec: VersionSpec, version: str, vdir: Path, path: str | None) -> dict[str, str]:
    parts = [*re.findall(r"\d+", version), "0", "0"]
    return {
        "version": version,
        "version_major": parts[0],
        "version_minor": f"{parts[0]}.{parts[1]}",
        "version_dir": str(vdir),
        "version_path": path or "",
    }


def _source_hash(folder: Path) -> str:
    """The task folder's content: a change in it (an edited program) installs the copy again."""
    h = hashlib.sha256()
    for f in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(f.relative_to(folder)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _install(
    tf: TaskFolder, spec: VersionSpec, src: Path, vals: dict[str, str], log: Callable[[str], None]
) -> str | None:
    """Copy the folder to `src` and run the version's install commands there with the installed
    tools. Returns what went wrong, or None. Skipped when the same install already happened."""
    mark = src.parent / _MARK
    stamp = json.dumps(
        {"source": _source_hash(tf.dir), "install": spec.install, "values": vals}, sort_keys=True
    )
    if src.is_dir() and mark.exists() and mark.read_text() == stamp:
        return None
    mark.unlink(missing_ok=True)
    if src.exists():
        shutil.rmtree(src)
    src.parent.mkdir(parents=True, exist_ok=True)
    # not the folder's bytecode: it is no source, and a process running the task may be writing it
    shutil.copytree(tf.dir, src, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    for command in spec.install:
        try:
            argv = [expand(a, vals) for a in command]
        except TemplateError as e:
            return f"cannot install {spec.name} {vals['version']}: {e}"
        log(" ".join(argv))
        try:
            proc = subprocess.run(argv, cwd=src, capture_output=True, text=True, timeout=1800)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"installing {spec.name} {vals['version']} failed: {' '.join(argv)}: {e}"
        if proc.returncode != 0:
            tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:] or ["(no message)"]
            return f"installing {spec.name} {vals['version']} failed: {' '.join(argv)}: {tail[0]}"
    mark.write_text(stamp)
    return None


def _tools(
    tf: TaskFolder, spec: VersionSpec, vals: dict[str, str], installed: dict[str, FoundTool]
) -> tuple[dict[str, FoundTool], list[str]]:
    """The installed tools with the version's replacements, each asked for its version under the
    version's environment (GOTOOLCHAIN makes the same `go` another toolchain). No minimum version
    applies: the choice is the user's, and a version too old for the program fails as a row."""
    out = dict(installed)
    problems: list[str] = []
    env = {k: expand(v, vals) for k, v in spec.env.items()}
    for name, template in spec.tools.items():
        path = expand(template, vals)
        found = probe(tf.tools[name], path, env) if os.path.isfile(path) else f"{path}: not found"
        if isinstance(found, str):
            out[name] = FoundTool(
                name, None, None, None, f"{name} for {spec.name} {vals['version']}: {found}"
            )
            problems.append(out[name].problem or name)
        else:
            out[name] = found
    return out, problems


def _before(spec: VersionSpec, version: str) -> Before | None:
    """The oldest-bound `before` table this version falls under, if any."""
    return next((b for b in spec.before if key(version) < key(b.version)), None)


def choose_folder(
    tf: TaskFolder,
    spec: VersionSpec,
    version: str,
    listed: Listing,
    log: Callable[[str], None] = lambda s: None,
) -> TaskFolder:
    """The folder at `version`: installed into its own build folder, with its tools, environment and
    variants (named VARIANT@version). Installing can fail (a registry that lists a version and then
    cannot deliver it): the folder then carries the problem, and its cells become rows that say so."""
    vdir = version_dir(tf, spec, version)
    src = vdir / "src"
    installed = resolve(tf.name, tf.dir.parent)
    vals = {n: t.path for n, t in installed.items() if t.path}
    vals.update(locations(), build=str(vdir), dir=str(src))
    vals.update(_version_values(spec, version, vdir, listed.paths.get(version)))
    problems: list[str] = []
    failed = _install(tf, spec, src, vals, log)
    if failed:
        problems.append(failed)
    tools, lacking = _tools(tf, spec, vals, installed)
    problems += lacking
    env = {k: expand(v, vals) for k, v in spec.env.items()}
    before = _before(spec, version)
    builds = tf.builds
    if before and before.build:
        builds = [dataclasses.replace(b, commands=before.build) for b in builds]
    if before and before.outputs is not None:
        builds = [dataclasses.replace(b, outputs=before.outputs) for b in builds]
    mine = dataclasses.replace(
        tf,
        name=f"{tf.name}@{suffix(tf, spec, version)}",
        dir=src,
        builds=builds,
        variants=[],
        chosen=Chosen(spec.name, version, vdir, tools, env, problems),
    )
    for v in tf.variants:
        if not spec.applies_to(v.name):
            continue
        when = list(v.when)
        if before:
            when.append(Rule(min_n=0, args=[], env={}, reason=before.reason))
        mine.variants.append(
            dataclasses.replace(
                v,
                name=f"{v.name}@{suffix(tf, spec, version)}",
                folder=mine,
                run=before.run if before and before.run else v.run,
                proof=before.proof if before and before.proof else v.proof,
                env={**v.env, **env},
                when=when,
                chosen_version={spec.name: version},
                version_of=v.name,
            )
        )
    if not failed and spec.reports:
        problems += _reported(mine, spec, version)
    return mine


def _reported(tf: TaskFolder, spec: VersionSpec, version: str) -> list[str]:
    """The chosen version must be the one the build will use: `go version` under GOTOOLCHAIN, the
    node binary's --version, tokio in the copy's Cargo.lock. Anything else is a problem, never a
    silent fallback to the installed version."""
    seen: str | None = None
    tool = tf.chosen.tools.get(spec.reports or "") if tf.chosen else None
    if tool is not None:
        seen = tool.version
    elif tf.variants:
        seen = library_versions(tf.variants[0]).get(spec.reports or "")
    if seen is None or seen == "unknown":
        return [f"{spec.reports} reports no version for {spec.name} {version}"]
    if not same(seen, version):
        return [f"{spec.reports} reports {seen}, not the chosen {version}: it was not installed"]
    return []


def choose(
    variant: Variant,
    spec: VersionSpec,
    version: str,
    listed: Listing,
    log: Callable[[str], None] = lambda s: None,
) -> Variant:
    """`variant` at `version` of `spec` (see choose_folder)."""
    tf = choose_folder(variant.folder, spec, version, listed, log)
    return next(v for v in tf.variants if v.version_of == variant.name)
