"""How much memory runs may still take on this machine, read now: MemAvailable less the reserve a
run's cap already leaves the host (1 GiB or 10 % of RAM), and never more than the memory cgroup
memrun runs in may still grow (its limit, or an ancestor's, less what it uses: a container or a
session's slice on cgroup v2, a limited hierarchy on v1). Runs in flight are counted by what they
use now; what they are still predicted to grow by is the scheduler's to add."""

from __future__ import annotations

import contextlib
from pathlib import Path

from runner.limits.host import CAP_RESERVE_BYTES, CAP_RESERVE_SHARE
from runner.measure import cgroups

MEMINFO = Path("/proc/meminfo")
NO_LIMIT = 1 << 62  # v1's "unlimited" is a number near 2^63


def _meminfo(path: Path = MEMINFO) -> dict[str, int]:
    out: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            key, _, rest = line.partition(":")
            words = rest.split()
            if words and words[0].isdigit():
                out[key] = int(words[0]) * 1024
    return out


def _read(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def cgroup_room(base: Path, own: str, limit_name: str, usage_name: str) -> int | None:
    """The least (limit - usage) from the cgroup `own` under `base` up to `base`: what it may still
    grow by before a limit on the way up stops it; None when no limit is set anywhere."""
    rooms = []
    path = base / own.strip("/")
    while True:
        limit, usage = _read(path / limit_name), _read(path / usage_name)
        if limit is not None and limit < NO_LIMIT and usage is not None:
            rooms.append(max(0, limit - usage))
        if path == base or base not in path.parents:
            break
        path = path.parent
    return min(rooms) if rooms else None


def _enclosing_room() -> int | None:
    for point, fstype, opts in cgroups.mounts():
        if fstype == "cgroup" and "memory" in opts:
            own = cgroups.own_path("memory") or "/"
            return cgroup_room(Path(point), own, "memory.limit_in_bytes", "memory.usage_in_bytes")
    for point, fstype, _opts in cgroups.mounts():
        if fstype == "cgroup2":
            own = cgroups.own_path(None) or "/"
            return cgroup_room(Path(point), own, "memory.max", "memory.current")
    return None


def free_memory(meminfo: Path = MEMINFO) -> int | None:
    """Bytes runs may still take now (see the module's docstring); None when MemAvailable cannot be
    read (then nothing runs beside anything: the scheduler cannot know it is safe)."""
    mem = _meminfo(meminfo)
    available, total = mem.get("MemAvailable"), mem.get("MemTotal")
    if available is None:
        return None
    reserve = max(CAP_RESERVE_BYTES, int(CAP_RESERVE_SHARE * (total or available)))
    free = available - reserve
    room = _enclosing_room()
    return max(0, free if room is None else min(free, room))
