"""Builds: run a folder's build alternative into build/<folder>/, skipping what is up to date.

"Up to date" is a stamp over the build commands, the tools' paths and versions, and the content of
the declared inputs, so a new compiler or an edited source rebuilds and nothing else does.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from runner.tasks.commands import subst, values
from runner.tasks.manifest import Build, TaskFolder, Variant, folders
from runner.tasks.toolchain import FoundTool, readiness


class BuildError(RuntimeError):
    """A build command failed; carries the variant names and the compiler's output."""

    def __init__(self, folder: str, variants: list[str], command: list[str], output: str) -> None:
        self.folder, self.variants, self.command, self.output = folder, variants, command, output
        super().__init__(
            f"build of {', '.join(variants)} failed: {' '.join(command)}\n{output.strip()[-4000:]}"
        )


def _stamp(tf: TaskFolder, build: Build, tools: dict[str, FoundTool]) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([build.name, build.commands, build.outputs]).encode())
    for name in sorted(tools):
        h.update(f"{name}={tools[name].path}:{tools[name].version_text}".encode())
    if tf.chosen is not None:  # a chosen version's environment picks its toolchain (GOTOOLCHAIN)
        h.update(json.dumps(sorted(tf.chosen.env.items())).encode())
    for rel in sorted(build.inputs):
        base = tf.dir / rel
        files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [base]
        for f in files:
            h.update(str(f.relative_to(tf.dir)).encode())
            h.update(f.read_bytes() if f.exists() else b"<missing>")
    return h.hexdigest()


def _environment(tf: TaskFolder) -> dict[str, str] | None:
    """A chosen version builds under its own environment (GOTOOLCHAIN=go1.18.10); others inherit."""
    if tf.chosen is None or not tf.chosen.env:
        return None
    return {**os.environ, **tf.chosen.env}


def _stamp_file(tf: TaskFolder) -> Path:
    return tf.build_dir / ".memrun-stamp"


def is_built(variant: Variant) -> bool:
    r = readiness(variant)
    if r.build is None:
        return False
    tf = variant.folder
    vals = values(tf, r.tools)
    try:
        recorded = _stamp_file(tf).read_text().strip()
    except OSError:
        return False
    outputs_ok = all(Path(subst(o, vals)).exists() for o in r.build.outputs)
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
    vals = values(tf, r.tools)
    names = [v.name for v in tf.variants]
    for command in r.build.commands:
        argv = [subst(a, vals) for a in command]
        log(" ".join(argv))
        try:
            proc = subprocess.run(argv, cwd=tf.dir, capture_output=True, text=True, env=_environment(tf))
        except OSError as e:
            raise BuildError(tf.name, names, argv, str(e)) from None
        if proc.returncode != 0:
            raise BuildError(tf.name, names, argv, proc.stdout + proc.stderr)
    for out in r.build.outputs:
        if not Path(subst(out, vals)).exists():
            raise BuildError(tf.name, names, [], f"expected output {subst(out, vals)} is missing")
    _stamp_file(tf).write_text(_stamp(tf, r.build, r.tools) + "\n")
    return True


def build_all(variants: list[Variant], log: Callable[[str], None], force: bool = False) -> dict[str, str]:
    """Build each folder once, saying what happens; returns {folder: first line of the error}.

    A failed folder does not stop the others: a sweep still runs (and records) the rest.
    """
    failed: dict[str, str] = {}
    todo = folders(variants)
    for i, tf in enumerate(todo, 1):
        v = next(x for x in variants if x.folder is tf)
        head = f"[build {i}/{len(todo)}] {tf.name} ({', '.join(x.name for x in tf.variants)}):"
        if not force and readiness(v).usable and is_built(v):
            log(f"{head} up to date")
            continue
        log(f"{head} building")
        try:
            build(v, log=lambda line: log(f"  $ {line}"), force=True)
        except BuildError as e:
            log(f"  FAILED\n{e}")
            failed[tf.name] = str(e).splitlines()[0]
            continue
        log("  built")
    return failed
