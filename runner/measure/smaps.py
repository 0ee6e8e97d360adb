"""A process's memory by kind of mapping, from /proc/PID/smaps: thread stacks (touched against
reserved), their guard pages, the heap and the runtime's arenas, other anonymous memory, and
file-backed code and data.

The rules know no runtime; they read only what the kernel shows of a mapping:
- a thread stack is `[stack]` (the main thread's), or an anonymous read-write mapping that sits
  directly above an inaccessible (PROT_NONE) anonymous mapping of at most GUARD_MAX bytes: the
  layout glibc's pthread stacks, HotSpot's thread stacks (their yellow and red zones) and Rust's
  signal stacks have, with the guard at the low end, where a downward-growing stack overflows;
- the heap and the arenas are `[heap]` (brk), anonymous read-write mappings of at least
  ARENA_MIN bytes that are no stack (Go's heap arenas, a JVM's Java heap, V8's spaces where the
  kernel merged their pages), and an anonymous read-write mapping directly below a larger
  inaccessible one: a reservation committed from its low end, as glibc's per-thread malloc
  arenas (64 MiB each) and a JVM's heap grow;
- everything else anonymous is "other anonymous" (small mappings, JIT code, PROT_NONE
  reservations, which are reserved but never resident);
- a mapping with a path is file-backed (shared libraries, the executable, mapped files).

Where a runtime keeps its tasks' stacks inside its heap (goroutines, virtual threads' stack chunks,
greenlets), smaps cannot see them as stacks: that is what the runtime's own books add (`memrun
explain --books`), and each manifest's [variant.books] says what it counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KIB = 1024
GUARD_MAX = 64 * KIB  # glibc's guard is a page; HotSpot's red, yellow and reserved zones 16 KiB
ARENA_MIN = 1 << 20
CLASSES = ("stack", "guard", "heap", "anon", "file")

# The header line of a mapping and the Size and Rss lines that follow it (their order is fixed:
# Size, KernelPageSize, MMUPageSize, Rss). One regex over the whole file: 40k mappings (10k
# threads) parse in a fraction of the time a Python loop over their million lines takes.
_MAPPING = re.compile(
    rb"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ (\d+) *([^\n]*)\n"
    rb"Size: +(\d+) kB\nKernelPageSize:[^\n]*\nMMUPageSize:[^\n]*\nRss: +(\d+) kB",
    re.M,
)


@dataclass(frozen=True)
class Mapping:
    start: int
    end: int
    perms: str  # "rw-p", "---p", "r-xp"...
    inode: int
    path: str  # "", "[heap]", "[stack]", "/usr/lib/…"
    size: int  # bytes reserved
    rss: int  # bytes resident

    @property
    def anonymous(self) -> bool:
        return self.inode == 0 and not self.path.startswith("/")

    @property
    def inaccessible(self) -> bool:
        return self.perms[:3] == "---"

    @property
    def writable(self) -> bool:
        return self.perms[:2] == "rw"


def parse(text: bytes) -> list[Mapping]:
    """Every mapping of one smaps file, in address order (as the kernel lists them)."""
    return [
        Mapping(
            int(a, 16),
            int(b, 16),
            p.decode(),
            int(i),
            path.decode("utf-8", "replace"),
            int(s) * KIB,
            int(r) * KIB,
        )
        for a, b, p, i, path, s, r in _MAPPING.findall(text)
    ]


def classify(maps: list[Mapping]) -> list[str]:
    """The class (CLASSES) of each mapping, by the rules of the module's docstring."""
    kinds = ["" for _ in maps]
    for i, m in enumerate(maps):
        if kinds[i]:
            continue
        if not m.anonymous and m.path not in ("[heap]", "[stack]"):
            kinds[i] = "anon" if m.path.startswith("[") else "file"  # [vdso], [vvar]: the kernel's
        elif m.path == "[stack]":
            kinds[i] = "stack"
        elif m.path == "[heap]":
            kinds[i] = "heap"
        elif m.writable and i > 0 and _guard(maps[i - 1], m):
            kinds[i], kinds[i - 1] = "stack", "guard"
        elif m.writable and (m.size >= ARENA_MIN or (i + 1 < len(maps) and _reserve(m, maps[i + 1]))):
            kinds[i] = "heap"
        else:
            kinds[i] = "anon"
    return kinds


def _guard(below: Mapping, m: Mapping) -> bool:
    return below.anonymous and below.inaccessible and below.end == m.start and below.size <= GUARD_MAX


def _reserve(m: Mapping, above: Mapping) -> bool:
    return above.anonymous and above.inaccessible and above.start == m.end and above.size > GUARD_MAX


def split(text: bytes) -> dict[str, dict[str, int]]:
    """One smaps file summed per class: bytes resident (rss), bytes reserved (size), mappings."""
    maps = parse(text)
    out = {c: {"rss": 0, "size": 0, "count": 0} for c in CLASSES}
    for m, kind in zip(maps, classify(maps), strict=True):
        part = out[kind]
        part["rss"] += m.rss
        part["size"] += m.size
        part["count"] += 1
    return out


def read_split(pid: int) -> dict[str, dict[str, int]] | None:
    """split() of a live process's smaps; None when it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/smaps", "rb") as f:
            text = f.read()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return split(text)


def add(total: dict[str, dict[str, int]], more: dict[str, dict[str, int]]) -> None:
    """Add one process's split into a tree's."""
    for kind, part in more.items():
        into = total.setdefault(kind, {"rss": 0, "size": 0, "count": 0})
        for key, value in part.items():
            into[key] = into.get(key, 0) + value
