"""The tick workload's parameters as the user types them (`--state 1KiB --period 1s,10s`), parsed
and checked: one line naming what is wrong, before anything runs or is stored."""

from __future__ import annotations

from runner.inputs import parse_size
from runner.workloads.web.params import duration

MAX_STATE = 1 << 26  # 64 MiB per task: more is surely a typo (a million tasks would need 64 TiB)
MIN_PERIOD, MAX_PERIOD = 0.001, 3600.0  # s: a timer finer than 1 ms measures the clock, not the tasks


def state_size(text: str) -> int:
    """`--state`: bytes each task keeps (1KiB, 4096, 64KiB: sizes as --memory-cap takes them)."""
    value = parse_size(text)
    if value > MAX_STATE:
        raise ValueError(f"must be at most {MAX_STATE:,} bytes (64 MiB) per task, got {value:,}")
    return value


def period(text: str) -> float:
    """One period in seconds (`1s`, `250ms`), from MIN_PERIOD to MAX_PERIOD."""
    value = duration(text)
    if not MIN_PERIOD <= value <= MAX_PERIOD:
        raise ValueError(f"a period must be from 1ms to 1h, got {text.strip()!r}")
    return value


def periods(text: str) -> tuple[float, ...]:
    """`--period`: one or more periods, comma-separated, each a sweep of its own, in rising order.
    A period given twice is an error, as an N given twice is."""
    if not text.strip():
        raise ValueError("no period given (say 1s or 1s,10s)")
    values = [period(t) for t in text.split(",")]
    if len(set(values)) < len(values):
        raise ValueError(f"a period is given more than once in {text!r}")
    return tuple(sorted(values))


def period_us(seconds: float) -> int:
    """The program's PERIOD_US: whole microseconds."""
    return round(seconds * 1e6)
