"""Install what task toolchains are missing, from the packages their manifests name.

Only Debian's apt and PyPI are used (the registries a machine of this kind reaches). Anything a
manifest cannot install (rustup, say) is left to its install hint, printed by `memrun doctor`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable

from runner import tasks


def plan(folders: Iterable[tasks.TaskFolder]) -> tuple[list[str], list[str], list[str]]:
    """(apt packages, pip packages, hints for what no package here installs) for these folders."""
    apt: list[str] = []
    pip: list[str] = []
    hints: list[str] = []
    for tf in folders:
        if not tf.apt and not tf.pip:
            hints.append(f"{tf.name}: {tf.install}")
        apt += [p for p in tf.apt if p not in apt]
        pip += [p for p in tf.pip if p not in pip]
    return apt, pip, hints


def missing_folders(variants: Iterable[tasks.Variant]) -> list[tasks.TaskFolder]:
    return tasks.folders(v for v in variants if not tasks.readiness(v).usable)


def install(variants: list[tasks.Variant], log: Callable[[str], None]) -> list[str]:
    """Install the missing packages; return problems that remain (one line each)."""
    todo = missing_folders(variants)
    apt, pip, hints = plan(todo)
    problems = list(hints)
    if apt:
        if os.geteuid() != 0:
            problems.append(
                f"not root, cannot install Debian packages: sudo apt-get install -y {' '.join(apt)}"
            )
        elif not shutil.which("apt-get"):
            problems.append(f"no apt-get here; install by hand: {' '.join(apt)}")
        else:
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            for argv in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *apt]):
                log("$ " + " ".join(argv))
                if subprocess.run(argv, env=env).returncode != 0:
                    problems.append(f"{' '.join(argv)} failed")
                    break
    if pip:
        argv = [sys.executable, "-m", "pip", "install", "-q", *pip]
        log("$ " + " ".join(argv))
        if subprocess.run(argv).returncode != 0:
            problems.append(f"{' '.join(argv)} failed")
    for tf in todo:
        for command in tf.post_install:
            argv = [tasks.expand_python(a) for a in command]
            log("$ " + " ".join(argv))
            if subprocess.run(argv).returncode != 0:
                problems.append(f"{tf.name}: post-install step failed: {' '.join(argv)}")
    tasks.resolve.cache_clear()
    return problems
