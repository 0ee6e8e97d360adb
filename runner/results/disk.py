"""Which disk a results file lives on, and how much room is left there: for the one line a failed
write ends with ("no space left on /mnt/x (tmpfs, 0 B free)")."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

MOUNTS = Path("/proc/self/mounts")


@dataclass(frozen=True)
class Disk:
    mount: str  # the mount point holding the path
    fstype: str  # "tmpfs", "ext4", or "?" when unknown
    free: int | None  # bytes an unprivileged writer may still use; None when unknown

    def __str__(self) -> str:
        free = "free space unknown" if self.free is None else f"{human_bytes(self.free)} free"
        return f"{self.mount} ({self.fstype}, {free})"


def human_bytes(n: int) -> str:
    """0 B, 512 B, 4.0 KiB, 1.5 MiB, 2.3 GiB: exact near zero, where a full disk is."""
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        n /= 1024
        if n < 1024 or unit == "TiB":
            return f"{n:,.1f} {unit}"
    raise AssertionError("unreachable")


def _unescape(field: str) -> str:
    """/proc/self/mounts writes a space in a mount point as \\040 (octal)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)


def _existing(path: Path) -> Path:
    path = Path(os.path.realpath(path))
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def disk_of(path: Path) -> Disk:
    """The mount holding path (the longest mount point that contains it; a later mount on the same
    point hides an earlier one, as in the kernel's table), its type and its free bytes."""
    where = _existing(path)
    mount, fstype = "", "?"
    try:
        table = MOUNTS.read_text().splitlines()
    except OSError:
        table = []
    for line in table:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = _unescape(fields[1])
        inside = str(where) == point or str(where).startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(mount):
            mount, fstype = point, fields[2]
    if not mount:  # no mount table: walk up to the mount point
        here = where
        while not os.path.ismount(here) and here != here.parent:
            here = here.parent
        mount = str(here)
    try:
        st = os.statvfs(where)
        free: int | None = st.f_bavail * st.f_frsize
    except OSError:
        free = None
    return Disk(mount, fstype, free)
