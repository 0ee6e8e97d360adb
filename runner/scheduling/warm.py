"""The memory a spawn is predicted to take, touched and given back just before its fork, so that
every spawn starts on memory the machine has already backed, whatever ran before or beside it.

Why: in a virtual machine the host may take back the guest's free memory (virtio-balloon's free
page reporting, on here by default: `page_reporting.page_reporting_order` on the kernel's command
line), and the first touch of such a page costs a fault in the host, seen in the guest as the
toucher's system time. On this project's reference VM a program touching 1.2 GiB took 0.35 s of
system time on memory freed a moment before, and 2.3-3.0 s on memory the host had taken back. A
run alone mostly reuses what the run before it freed; a run beside large holds finds that memory
held and spawns on memory the host must back again: in the A/A comparison of `sweep --jobs 8`
against `--jobs 1`, 1M spawns took up to 4.3 times as long, all of it their system time. Touched
first, the memory is back in the free lists (taken before the pages the host holds), so the spawn
takes backed memory, alone or beside others. On bare metal it costs memrun ~0.3 s per GiB and
changes nothing of the run.

The pages are memrun's own, touched and unmapped before the fork: none is charged to the run's
cgroup, and the run's figures are read from its own tree and cgroup as always."""

from __future__ import annotations

import mmap
import time
from dataclasses import dataclass

from runner.units import GIB, MIB

WARM_MIN = 64 * MIB  # below this the spawn's own first touches cost too little to matter
WARM_S_PER_GIB = 1.5  # s per GiB the host must back (measured 2.3-3.0 s for 1.2 GiB, 12.3 s for 7.8)


@dataclass(frozen=True)
class Warmed:
    """What was touched before a run's fork: bytes, and the seconds it took."""

    bytes: int
    s: float

    def to_json(self) -> dict[str, float | int]:
        return {"bytes": self.bytes, "s": round(self.s, 3)}


def size_for(peak: int, free: int | None) -> int:
    """Bytes to touch for a spawn predicted to peak at `peak`: all of it, but never more than half of
    what the machine may still give (free: runner.scheduling.memory.free_memory), and nothing below
    WARM_MIN or when the free memory is unknown."""
    if free is None:
        return 0
    size = min(peak, free // 2)
    return size if size >= WARM_MIN else 0


def bound_s(peak: int) -> float:
    """Seconds the touch of `peak` bytes may take at worst (on memory the host must back)."""
    return WARM_S_PER_GIB * peak / GIB if peak >= WARM_MIN else 0.0


def warm(size: int) -> Warmed:
    """Touch `size` bytes of fresh anonymous memory (MAP_POPULATE: the kernel faults every page in
    for writing, without holding the GIL) and give them back."""
    t0 = time.monotonic()
    if size > 0:
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0)
        area = mmap.mmap(-1, size, flags=flags)
        if not getattr(mmap, "MAP_POPULATE", 0):
            for offset in range(0, size, mmap.PAGESIZE):
                area[offset] = 1
        area.close()
    return Warmed(size, time.monotonic() - t0)
