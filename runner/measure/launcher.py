"""Compile the tiny C launcher on first use.

The launcher must be a separate, freshly exec'd small binary (see launcher.c for why); compiling
it from source on the user's machine keeps the repository free of binaries.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
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


@dataclass
class LaunchReport:
    """What the launcher tells over its report pipe (launcher.c: start, execerr, exit, done)."""

    pid: int | None = None
    t_fork: float | None = None
    exec_error: str | None = None
    status: int | None = None
    t_exit: float | None = None
    maxrss_kib: int | None = None
    utime: float | None = None
    stime: float | None = None
    done_maxrss_kib: int | None = None
    done_utime: float | None = None
    done_stime: float | None = None
    started: threading.Event = field(default_factory=threading.Event)
    exited: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)

    def feed(self, line: str) -> None:
        kind, _, rest = line.partition(" ")
        parts = rest.split()
        if kind == "start":
            self.pid, self.t_fork = int(parts[0]), float(parts[1])
            self.started.set()
        elif kind == "execerr":
            self.exec_error = rest.split(" ", 1)[1] if " " in rest else rest
        elif kind == "exit":
            self.status, self.t_exit = int(parts[0]), float(parts[1])
            self.maxrss_kib = int(parts[2])
            self.utime, self.stime = float(parts[3]), float(parts[4])
            self.exited.set()
        elif kind == "done":
            self.done_maxrss_kib = int(parts[0])
            self.done_utime, self.done_stime = float(parts[1]), float(parts[2])
            self.done.set()

    def close(self) -> None:
        for event in (self.started, self.exited, self.done):
            event.set()


def read_lines(stream, on_line: Callable[[bytes], None]) -> None:
    """Feed each line of stream to on_line until EOF (run in a thread per stream)."""
    with contextlib.suppress(ValueError, OSError):
        for line in iter(stream.readline, b""):
            on_line(line)
