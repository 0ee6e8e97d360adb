"""Latency histograms (the http workload's and the tick workload's) as HdrHistogram keeps them
(3 significant digits, values in ns), the format wrk2, Gatling and Cassandra-stress users read:
built from the raw counts memrun's client prints (client.c lays its counts out as HdrHistogram_c
does) or a tick program's buckets, stored as HdrHistogram's own compressed
encoding (any HdrHistogram library decodes it), merged across runs, read at percentiles, and
written as `.hgrm` percentile distributions.

Why the counts are read here with numpy and not through hdrh's own loops: a percentile read by
hdrh walks 33,792 counts in Python; pooling and reading a sweep's hundreds of histograms that way
takes minutes. The layout and the rules are HdrHistogram's (tests check them against hdrh's own
get_value_at_percentile).

A percentile is *shown* only when at least MIN_BEYOND samples lie beyond it (p99.9 needs 10,000
samples): with fewer it is the largest of a handful, not a percentile, and reads "too few".
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np
from hdrh.histogram import HdrHistogram

LOWEST, HIGHEST, DIGITS = 1, 3_600_000_000_000, 3  # ns, as client.c's HDR_HIGHEST (1 h)
HALF_MAG = 10  # sub-bucket half count 1024 = 2^10 (2048 sub-buckets: 3 significant digits)
LENGTH = (32 + 1) * 1024  # counts for 1 ns .. 2^42 ns
BUCKETS, SUB_BUCKETS = LENGTH // (1 << HALF_MAG) - 1, 1 << (HALF_MAG + 1)  # as HdrHistogram sizes them
PERCENTILES = {"p50_us": 50.0, "p90_us": 90.0, "p99_us": 99.0, "p999_us": 99.9}
MIN_BEYOND = 10  # samples that must lie beyond a percentile for it to be shown


def _bucket_and_sub(index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    bucket = (index >> HALF_MAG) - 1
    sub = (index & ((1 << HALF_MAG) - 1)) + (1 << HALF_MAG)
    low = bucket < 0
    sub = np.where(low, sub - (1 << HALF_MAG), sub)
    bucket = np.where(low, 0, bucket)
    return bucket, sub


def lowest_value(index: np.ndarray | int) -> np.ndarray:
    """The lowest value (ns) each counts index stands for (HdrHistogram's valueFromIndex)."""
    bucket, sub = _bucket_and_sub(np.asarray(index, dtype=np.int64))
    return sub << bucket


def highest_value(index: np.ndarray | int) -> np.ndarray:
    """The highest value (ns) equivalent to each index's: what HdrHistogram reports at a
    percentile, so a percentile never reads low."""
    bucket, sub = _bucket_and_sub(np.asarray(index, dtype=np.int64))
    return (sub << bucket) + (np.int64(1) << bucket) - 1


def index_of(value_ns: int) -> int:
    """The counts index of a value (HdrHistogram's countsArrayIndex), as client.c computes it."""
    v = max(0, min(int(value_ns), HIGHEST))
    bucket = 53 - (64 - (v | 2047).bit_length())
    sub = v >> bucket
    return ((bucket + 1) << HALF_MAG) + (sub - (1 << HALF_MAG))


@dataclass
class Hist:
    """One histogram's counts (ns). Empty histograms are legal: every reading of one is None."""

    counts: np.ndarray

    @classmethod
    def empty(cls) -> Hist:
        return cls(np.zeros(LENGTH, dtype=np.int64))

    @classmethod
    def from_raw(cls, raw: dict[str, Any] | None) -> Hist:
        """From the client's `{"counts": [[index, count], ...]}`."""
        h = cls.empty()
        for index, count in (raw or {}).get("counts") or []:
            h.counts[int(index)] += int(count)
        return h

    @classmethod
    def decode(cls, text: str | None) -> Hist:
        """From HdrHistogram's compressed encoding (what `hdr` stores)."""
        if not text:
            return cls.empty()
        decoded = HdrHistogram.decode(text.encode("ascii"))
        counts = np.frombuffer(decoded.counts, dtype=np.uint64, count=decoded.counts_len).astype(np.int64)
        h = cls.empty()
        h.counts[: min(LENGTH, len(counts))] += counts[:LENGTH]
        return h

    @classmethod
    def from_old_buckets(cls, buckets: Iterable[Iterable[int]] | None) -> Hist:
        """From the first client's buckets, [[upper bound in us, count], ...] (1/64 of a power of
        two wide): each count at its bucket's upper bound, which is where that client read its
        percentiles, so old figures keep their values."""
        h = cls.empty()
        for upper_us, count in buckets or []:
            h.counts[index_of(int(upper_us) * 1000)] += int(count)
        return h

    @property
    def count(self) -> int:
        return int(self.counts.sum())

    def __add__(self, other: Hist) -> Hist:
        return Hist(self.counts + other.counts)

    def _nonzero(self) -> np.ndarray:
        return np.flatnonzero(self.counts)

    def percentile_ns(self, p: float) -> int | None:
        """HdrHistogram's value at percentile p: the highest equivalent value of the first index
        whose cumulative count reaches round(p% of the count), at least 1; None when empty."""
        total = self.count
        if not total:
            return None
        target = max(1, int(min(p, 100.0) * total / 100.0 + 0.5))
        index = int(np.searchsorted(np.cumsum(self.counts), target))
        return int(highest_value(index)) if p > 0 else int(lowest_value(index))

    def min_ns(self) -> int | None:
        nz = self._nonzero()
        return int(lowest_value(nz[0])) if len(nz) else None

    def max_ns(self) -> int | None:
        nz = self._nonzero()
        return int(highest_value(nz[-1])) if len(nz) else None

    def mean_ns(self) -> float | None:
        """HdrHistogram's mean (the one its `.hgrm` prints); None when empty."""
        moments = self._moments()
        return moments[0] if moments else None

    def _moments(self) -> tuple[float, float] | None:
        """(mean, standard deviation) in ns as HdrHistogram's Java library computes them: each
        count at its range's median equivalent value (lowest + half the range's size, in whole
        ns), summed in index order; None when empty."""
        nz = self._nonzero()
        total = self.count
        if not total:
            return None
        low, high = lowest_value(nz), highest_value(nz)
        middles = [int(lo) + ((int(hi) - int(lo) + 1) >> 1) for lo, hi in zip(low, high, strict=True)]
        counts = [int(self.counts[index]) for index in nz]
        mean = sum(m * c for m, c in zip(middles, counts, strict=True)) / total
        spread = 0.0
        for m, c in zip(middles, counts, strict=True):
            spread += (m * 1.0 - mean) ** 2 * c
        return mean, math.sqrt(spread / total)

    def beyond(self, p: float) -> float:
        """How many samples lie beyond percentile p (count * (1 - p)), rounded to 1e-6 so that
        10,000 samples put exactly 10 beyond p99.9."""
        return round(self.count * (100.0 - p) / 100.0, 6)

    def shown(self, p: float) -> bool:
        """Whether percentile p rests on enough samples to be shown (MIN_BEYOND beyond it)."""
        return self.count > 0 and self.beyond(p) >= MIN_BEYOND

    def hdrh(self) -> HdrHistogram:
        """This histogram as an hdrh HdrHistogram (to encode or to print)."""
        h = HdrHistogram(LOWEST, HIGHEST, DIGITS)
        for index in self._nonzero():
            h.record_value(int(lowest_value(index)), int(self.counts[index]))
        return h

    def encode(self) -> str | None:
        """HdrHistogram's compressed encoding (base64), None when empty."""
        return self.hdrh().encode().decode("ascii") if self.count else None

    def hgrm(self, unit_ns: float = 1e6, ticks_per_half_distance: int = 5) -> str:
        """The percentile distribution as HdrHistogram prints it (`.hgrm`, values in ms): its Java
        library's outputPercentileDistribution, byte for byte (tests/fixtures/hgrm holds files it
        printed), the file wrk2 writes with --latency and HdrHistogram's plotter reads.

        Written here, not through the hdrh package: hdrh walks every count in Python (minutes for
        a sweep's histograms), steps its percentile ticks without Java's truncation to whole
        halvings, and prints the standard deviation unscaled (in ns under a ms header)."""
        d = DIGITS
        lines = [f"{'Value':>12} {'Percentile':>14} {'TotalCount':>10} {'1/(1-Percentile)':>14}\n\n"]
        total = self.count
        nz = self._nonzero()
        high = highest_value(nz)
        seen = 0
        level = 0.0  # the percentile the next line is due at
        for i, index in enumerate(nz):
            seen += int(self.counts[index])
            value = int(high[i]) / unit_ns
            while 100.0 * seen / total >= level:
                lines.append(
                    f"{_fixed(value, d, 12)} {_fixed(level / 100, 12, 2)} {seen:10d} "
                    f"{_fixed(1 / (1 - level / 100), 2, 14)}\n"
                )
                gap = 100.0 - level
                if gap:  # ticks_per_half_distance lines in each halving of the distance to 100 %
                    half_distance = 2.0 ** (int(math.log(100.0 / gap) / math.log(2)) + 1)
                    level += 100.0 / (ticks_per_half_distance * half_distance)
                if seen == total:
                    break  # the last value has its line at the level reached, then 100 %
        if total:
            lines.append(f"{_fixed(int(high[-1]) / unit_ns, d, 12)} {_fixed(1.0, 12, 2)} {total:10d}\n")
        mean, stddev = self._moments() or (0.0, 0.0)
        top = int(high[-1]) / unit_ns if total else 0.0
        mean_text, spread_text = _fixed(mean / unit_ns, d, 12), _fixed(stddev / unit_ns, d, 12)
        lines.append(f"#[Mean    = {mean_text}, StdDeviation   = {spread_text}]\n")
        lines.append(f"#[Max     = {_fixed(top, d, 12)}, Total count    = {total:12d}]\n")
        lines.append(f"#[Buckets = {BUCKETS:12d}, SubBuckets     = {SUB_BUCKETS:12d}]\n")
        return "".join(lines)

    def curve(self) -> tuple[list[float], list[float]]:
        """(percentiles, values in ms) at each recorded value: the share of samples at or under
        it, as HdrHistogram's plot draws them."""
        nz = self._nonzero()
        if not len(nz):
            return [], []
        seen = np.cumsum(self.counts[nz])
        return list(100.0 * seen / seen[-1]), list(highest_value(nz) / 1e6)


def _fixed(x: float, places: int, width: int) -> str:
    """x as Java's %WIDTH.PLACESf prints it: its shortest decimal rounded half up (Python rounds
    the binary value half to even: 0.9997802734375 is ...437 here and ...438 in Java)."""
    rounded = Decimal(repr(x)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return f"{rounded:{width}.{places}f}"


def us(ns: float | None) -> float | None:
    """ns -> us, rounded to the ns (None stays None: an empty histogram has no value, never 0)."""
    return None if ns is None else round(ns / 1000.0, 3)


def summary(raw: dict[str, Any] | None, censored: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a phase stores of one histogram the client printed: count, percentiles, min, max and
    mean in us (null when empty) and the histogram itself (`hdr`); for latency, how many of its
    samples are censored (requests that got no answer) and the smallest such value."""
    raw = raw or {}
    h = Hist.from_raw(raw)
    n = h.count
    out: dict[str, Any] = {"count": n}
    out.update({k: us(h.percentile_ns(p)) for k, p in PERCENTILES.items()})
    exact_max, exact_min = raw.get("max_ns"), raw.get("min_ns")
    out["min_us"] = us(exact_min if exact_min is not None else h.min_ns())
    out["max_us"] = us(exact_max if exact_max is not None else h.max_ns())
    total = raw.get("sum_ns")
    out["mean_us"] = round(float(total) / n / 1000.0, 3) if n and total is not None else us(h.mean_ns())
    if raw.get("clamped"):
        out["clamped"] = int(raw["clamped"])  # values past HIGHEST, counted at it
    if censored is not None:
        out["censored"] = int(censored.get("count") or 0)
        out["censored_min_us"] = us(censored.get("min_ns"))
    out["hdr"] = h.encode()
    return out


def stored(hist: dict[str, Any] | None) -> Hist:
    """A stored histogram back: HdrHistogram's encoding (this client), or the first client's
    buckets; empty when there is neither."""
    hist = hist or {}
    if hist.get("hdr"):
        return Hist.decode(hist["hdr"])
    return Hist.from_old_buckets(hist.get("buckets"))


def pooled(hists: Iterable[dict[str, Any] | None]) -> Hist:
    """Runs' stored histograms merged (counts added), as HdrHistogram's add() does."""
    total = Hist.empty()
    for h in hists:
        total = total + stored(h)
    return total
