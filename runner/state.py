"""Machine-wide state that must outlive a memrun process: where it lives, and who owns it.

A sweep raises kernel limits and holds the machine for an hour; if memrun is SIGKILLed the
next memrun must find out and clean up. So what it changes is written down first (the limits
journal) and who is measuring is recorded (the sweep lock), each with its owner's PID and start
time, so "is the owner still alive?" survives PID reuse.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

# Root-only state (the limits journal): survives reboots, unlike /run, so a crash just before a
# reboot is still noticed; the values it restores are then simply equal to what is in force.
STATE_DIR = Path(os.environ.get("MEMRUN_STATE", "/var/lib/memrun"))


@dataclass(frozen=True)
class Owner:
    """A process, identified so that a later process with the same PID is not mistaken for it."""

    pid: int
    start_ticks: int | None  # /proc/PID/stat field 22: clock ticks after boot
    command: str
    started_at: str

    @classmethod
    def me(cls) -> Owner:
        return cls(
            os.getpid(),
            start_ticks(os.getpid()),
            shlex.join(["memrun", *sys.argv[1:]]),
            time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        )

    @classmethod
    def from_dict(cls, data: dict) -> Owner:
        return cls(
            int(data["pid"]),
            data.get("start_ticks"),
            str(data.get("command", "?")),
            str(data.get("started_at", "?")),
        )

    def to_dict(self) -> dict:
        return asdict(self)

    def alive(self) -> bool:
        ticks = start_ticks(self.pid)
        return ticks is not None and (self.start_ticks is None or ticks == self.start_ticks)

    def describe(self) -> str:
        return f"PID {self.pid} ({self.command}, started {self.started_at})"


def start_ticks(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rpartition(")")[2].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def write_atomically(path: Path, text: str, mode: int = 0o600) -> None:
    """Write, fsync, rename, fsync the directory: after a crash the file is whole or absent."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
