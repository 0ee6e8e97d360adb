"""Units, in one place: what a MB is, and how a byte count is written for people.

MB (10^6 bytes) is the 2023 article's unit for tables and figures, so ours compare with it; MiB is
for everything about this machine (limits, caps, measure's own output); KiB for per-task costs.
"""

from __future__ import annotations

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
MB = 1_000_000  # a MiB figure reads ~5 % higher than the same bytes in MB


def mb(value: float) -> str:
    return f"{value / MB:,.1f} MB"


def mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / MIB:,.1f} MiB"


def count(value: int | str | None) -> str:
    """A count with thousands separators; a word (\"unlimited\", \"max\") as it is."""
    return "unreadable" if value is None else f"{value:,}" if isinstance(value, int) else value


def size(value: int | str | None) -> str:
    """Bytes for people: GiB from 1 GiB up, else MiB."""
    if not isinstance(value, int):
        return count(value)
    if value >= GIB:
        return f"{value / GIB:,.1f} GiB"
    return f"{value / MIB:,.0f} MiB"


def format_number(value: float) -> str:
    """1.0 -> "1", 0.5 -> "0.5": a whole number never gets a decimal point on a command line."""
    return str(int(value)) if value == int(value) else f"{value:g}"
