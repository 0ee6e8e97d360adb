"""Free page reporting held back while memrun measures, and put back after, as a raised sysctl is.

Why: a virtual machine whose balloon driver reports free pages to its host (virtio-balloon's free
page reporting) gives the host back memory a run has just freed; the next touch of such a page
faults in the host first, and the guest sees it as the toucher's system time. On this project's
reference VM a program touching 1.2 GiB took 0.35 s of system time on memory freed a moment
before and 2.3-3.0 s on memory the host had taken back, so a spawn's time depended on what ran
before and beside it (a 1M spawn beside holds took up to 4.3 times as long in the A/A comparison
of `sweep --jobs 8` against `--jobs 1`). Its kernel keeps a freed page from the host only as
long as `min_free_ms` and `max_waiting_mib` say; memrun raises both for the length of a measuring
command (as pyperf's `system tune` sets a CPU governor), so that memory a run frees stays backed
for the next (runner.scheduling.warm touches what the next spawn will take). Where the parameters
do not exist (bare metal, a kernel without them) there is nothing to hold back.

Both values are journaled before they change (runner.limits.journal), so a SIGKILLed memrun's
are put back by the next command; one already held by another memrun is left to it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from runner.limits import journal
from runner.limits.host import read_int
from runner.limits.raising import Change
from runner.signals import sigterm_raises

PARAMETERS = Path("/sys/module/page_reporting/parameters")
HOLD_MS = 300_000  # a freed page stays the guest's this long (the parameter refused 500,000 here)
HOLD_WAITING_MIB = 16_384  # and up to this much freed memory may wait unreported
# "leave": do not touch it (a test run beside others, each with a lock of its own, must not change
# what is the machine's; spawn times may then depend on what ran before).
ENV = "MEMRUN_PAGE_REPORTING"


def _writer(path: Path):
    def write(value: int) -> None:
        path.write_text(f"{value}\n")

    return write


def hold_back(parameters: Path = PARAMETERS) -> list[Change]:
    """The changes that keep freed memory from the host while memrun measures: [] where the kernel
    has no such parameters, they cannot be written (not root), or they already hold at least as
    much (another memrun holds them: it puts them back)."""
    changes = []
    for name, target in (("min_free_ms", HOLD_MS), ("max_waiting_mib", HOLD_WAITING_MIB)):
        path = parameters / name
        old = read_int(path)
        if old is None or old >= target or not _writable(path):
            continue
        changes.append(Change(f"page_reporting.{name}", old, target, _writer(path), str(path)))
    return changes


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


def state(parameters: Path = PARAMETERS) -> str | None:
    """The fingerprint's words for it: None without free page reporting, else "held" when memrun
    holds freed memory back from the host, "reports after N ms" when not."""
    min_free = read_int(parameters / "min_free_ms")
    if min_free is None:
        return None
    return "held" if min_free >= HOLD_MS else f"reports after {min_free} ms"


@contextlib.contextmanager
def held(log: Callable[[str], None], parameters: Path = PARAMETERS) -> Iterator[list[Change]]:
    """Hold page reporting back for the block and put it back however the block ends; the changes
    made. Silent when all goes well (the sweep's fingerprint records it as page_reporting); a value
    the kernel refuses or cannot take back is said in one line, and the measurement goes on."""
    changes = [] if os.environ.get(ENV) == "leave" else hold_back(parameters)
    entries = [journal.Entry(c.name, c.sysctl or "", c.old, c.new) for c in changes]
    done: list[Change] = []
    with sigterm_raises():
        journal.record(entries)
        try:
            for c in changes:
                try:
                    c.write(c.new)
                    done.append(c)
                except OSError as e:
                    log(f"memrun: could not hold free page reporting back ({c.name} {c.new}: {e.strerror})")
            yield done
        finally:
            failed = False
            for c in reversed(done):
                try:
                    c.write(c.old)
                except OSError as e:
                    failed = True
                    log(f"memrun: could not put {c.name} back to {c.old}: {e.strerror}")
            if entries and not failed:
                journal.clear(entries)
