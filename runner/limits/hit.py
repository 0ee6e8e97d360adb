"""A limit that N tasks would exceed, and how to lift it: what every prediction returns, whether the
limit caps threads (runner.limits.predict) or connections (runner.limits.connections)."""

from __future__ import annotations

from dataclasses import dataclass

from runner.limits.host import BYTE_KEYS, ROUND_TO
from runner.units import count, size


@dataclass(frozen=True)
class Hit:
    """One limit that N tasks would exceed, and how to lift it."""

    key: str  # key in read_limits(), e.g. "max_map_count"
    limit: str  # its usual name, e.g. "vm.max_map_count"
    current: int | str | None
    needed: int  # what N needs (same unit as current)
    target: int | None  # the value raised_limits() sets; None = not raised automatically
    remedy: str  # the exact command or step
    fails: bool = True  # False: N still runs, more slowly (an accept backlog: connects are retried)

    def describe(self) -> str:
        show = size if self.key in BYTE_KEYS else count
        return f"{self.limit}: {show(self.current)} < {show(self.needed)} needed -> {self.remedy}"


def round_up(value: int, step: int = ROUND_TO) -> int:
    """Raised values are rounded up: readable numbers, not much more than needed."""
    return -(-value // step) * step
