"""Compile the tiny C launcher on first use.

The launcher must be a separate, freshly exec'd small binary (see launcher.c for why); compiling
it from source on the user's machine keeps the repository free of binaries.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from runner.paths import BUILD_DIR

SOURCE = Path(__file__).with_name("launcher.c")


class LauncherError(RuntimeError):
    """The launcher could not be built (no C compiler, or it failed)."""


def launcher_path() -> Path:
    return BUILD_DIR / "tools" / "memrun-launch"


def ensure_launcher() -> Path:
    """Return the launcher binary, (re)building it when missing or older than its source."""
    return compiled(SOURCE, launcher_path(), what="the launcher")


def compiled(source: Path, target: Path, *, what: str, flags: tuple[str, ...] = ()) -> Path:
    """target built from the C file source with the system's compiler, rebuilt when missing or
    older than its source; written atomically, so two memruns never see half a binary."""
    if target.exists() and target.stat().st_mtime >= source.stat().st_mtime:
        return target
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise LauncherError(f"no C compiler found to build {what}: apt-get install -y gcc")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}")
    proc = subprocess.run(
        [cc, "-O2", "-Wall", *flags, "-o", str(tmp), str(source)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise LauncherError(f"building {what} failed:\n{proc.stderr.strip()}")
    os.replace(tmp, target)
    return target
