"""What a tick program says at its end (tasks/README.md, "Tick protocol"): two lines after
`ready N`,

    tick periods K asked N·K achieved A checksum C
    lateness_us I:COUNT I:COUNT ...

read into a Summary, its histogram's buckets into runner.analysis.hdr's Hist (each bucket's count
at its lowest value, so a percentile reads the bucket it fell in), and stored as a run's report:
the counts, the percentiles, and HdrHistogram's encoding of the lateness."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from runner.analysis.hdr import PERCENTILES, Hist, index_of, us

BUCKETS = 3328  # exact below 256 µs, then 128 a power of two up to 2^32 µs
# The least CPU time a CPU per wake rests on: the kernel counts a process's CPU in clock ticks
# (10 ms here), so three wakes of one task (N = 1) read as 0 or 3,333 µs each.
MIN_CPU_S = 0.1
LINE = re.compile(r"^tick periods (\d+) asked (\d+) achieved (\d+) checksum (\d+)\s*$")


def bucket(value_us: int) -> int:
    """The protocol's bucket of a lateness in µs (what every program computes)."""
    v = min(max(int(value_us), 0), (1 << 32) - 1)
    if v < 256:
        return v
    m = v.bit_length() - 1
    return 256 + (m - 8) * 128 + (v >> (m - 7)) - 128


def lowest_us(index: int) -> int:
    """The smallest lateness in µs that falls in bucket `index`."""
    if index < 256:
        return index
    m, sub = 8 + (index - 256) // 128, 128 + (index - 256) % 128
    return sub << (m - 7)


@dataclass(frozen=True)
class Summary:
    """A tick program's own account of its window."""

    periods: int  # K whole periods from the first boundary after `ready`
    asked: int  # N·K wakes due in the window
    achieved: int  # of those, the wakes that happened before the window's end
    checksum: int
    lateness: dict[int, int]  # protocol bucket -> wakes

    @property
    def recorded(self) -> int:
        return sum(self.lateness.values())

    def hist(self) -> Hist:
        """The lateness as an HdrHistogram (ns), each bucket at its lowest value."""
        h = Hist.empty()
        for index, count in self.lateness.items():
            h.counts[index_of(lowest_us(index) * 1000)] += count
        return h

    def to_json(self) -> dict[str, Any]:
        """What a run stores (its `report`): the counts, and the lateness as its percentiles,
        max and HdrHistogram encoding (`hdr`)."""
        h = self.hist()
        lateness: dict[str, Any] = {"count": h.count}
        lateness.update({k: us(h.percentile_ns(p)) for k, p in PERCENTILES.items()})
        lateness["max_us"] = us(h.max_ns())
        lateness["hdr"] = h.encode()
        return {
            "periods": self.periods,
            "asked": self.asked,
            "achieved": self.achieved,
            "checksum": self.checksum,
            "lateness": lateness,
        }


class SummaryError(ValueError):
    """The program's last lines are not the protocol's; the message says what is wrong."""


def parse(lines: list[str]) -> Summary:
    """The summary from a program's stdout lines (`ready N` among them). SummaryError otherwise."""
    head = next((m for line in lines if (m := LINE.match(line))), None)
    if head is None:
        raise SummaryError("no `tick periods K asked … achieved …` line")
    hist_line = next((line for line in lines if line.startswith("lateness_us")), None)
    if hist_line is None:
        raise SummaryError("no `lateness_us` line")
    counts: dict[int, int] = {}
    for token in hist_line.split()[1:]:
        index, colon, count = token.partition(":")
        if not colon or not index.isdigit() or not count.isdigit() or int(index) >= BUCKETS:
            raise SummaryError(f"`lateness_us`: {token[:40]!r} is not BUCKET:COUNT (0 ≤ BUCKET < {BUCKETS})")
        counts[int(index)] = counts.get(int(index), 0) + int(count)
    periods, asked, achieved, checksum = (int(g) for g in head.groups())
    return Summary(periods, asked, achieved, checksum, {i: c for i, c in sorted(counts.items()) if c})
