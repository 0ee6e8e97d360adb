"""Parse what a user types: task counts (`1,1e4,10k,10_000`), sleeps (`10`, `auto`, `auto:2`),
sizes (`512MiB`, `1.5G`), settings (`GOGC=50`), and numbers that must be finite.

Strict on purpose: a typo must stop the sweep before it runs for an hour, not after. Every error
is a ValueError with a one-line message naming the bad value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from runner.units import format_number

MAX_N = 100_000_000  # beyond this no runtime here has room, and 1e99 is surely a typo
_SUFFIX = {"k": 10**3, "m": 10**6}
_TOKEN = re.compile(r"^\+?(?P<num>[0-9][0-9_]*(?:\.[0-9_]+)?(?:e\+?[0-9]+)?)(?P<suffix>[km]?)$", re.I)


def parse_n(token: str) -> int:
    """One count; ValueError with a one-line message naming the bad token."""
    text = token.strip()
    if not text:
        raise ValueError("empty value in the N list")
    m = _TOKEN.match(text)
    if not m:
        if text.startswith("-"):
            raise ValueError(f"N must be positive, got {text!r}")
        raise ValueError(f"not a task count: {text!r} (use e.g. 1, 10000, 10_000, 1e4 or 10k)")
    try:
        value = Decimal(m.group("num").replace("_", "")) * _SUFFIX.get(m.group("suffix").lower(), 1)
    except InvalidOperation:
        raise ValueError(f"not a task count: {text!r}") from None
    if value != value.to_integral_value():
        raise ValueError(f"N must be a whole number, got {text!r}")
    n = int(value)
    if n < 1:
        raise ValueError(f"N must be at least 1, got {text!r}")
    if n > MAX_N:
        raise ValueError(f"N={text} is more than memrun allows ({MAX_N:.0e})")
    return n


def parse_n_list(text: str) -> list[int]:
    """A comma-separated list, ascending; repeated values are an error, not silently merged."""
    if not text.strip():
        raise ValueError("--n is empty (e.g. --n 1,1e4,1e5,1e6)")
    values = [parse_n(t) for t in text.split(",")]
    seen: set[int] = set()
    for v in values:
        if v in seen:
            raise ValueError(f"N={v} is given more than once in {text!r}")
        seen.add(v)
    return sorted(values)


DEFAULT_SLEEP = 10.0
MAX_SLEEP = 86400.0


@dataclass(frozen=True)
class SleepSpec:
    """`--sleep`: seconds, or auto (start at `seconds`, re-run a cell whose spawning outlasted it)."""

    seconds: float = DEFAULT_SLEEP
    auto: bool = False

    @classmethod
    def parse(cls, value: str) -> SleepSpec:
        """`10` -> 10 s; `auto` -> auto from 10 s; `auto:2` -> auto from 2 s."""
        auto = value == "auto" or value.startswith("auto:")
        text = value[5:] if value.startswith("auto:") else (str(DEFAULT_SLEEP) if auto else value)
        try:
            seconds = float(text)
        except ValueError:
            raise ValueError(f"--sleep must be seconds or 'auto', got {value!r}") from None
        if not 0 < seconds <= MAX_SLEEP:  # also false for NaN
            raise ValueError(f"--sleep must be between 0 and {MAX_SLEEP:g} seconds, got {value!r}")
        return cls(seconds, auto)

    def __str__(self) -> str:
        """The spelling stored in every row (and compared on --resume)."""
        if self.auto:
            return "auto" if self.seconds == DEFAULT_SLEEP else f"auto:{format_number(self.seconds)}"
        return format_number(self.seconds)


_SIZE = re.compile(r"^\s*(?P<num>[0-9]+(?:\.[0-9]+)?)\s*(?P<unit>[kmgt]?)(?P<i>i?)(?P<b>b?)\s*$", re.I)
_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}


def parse_size(text: str) -> int:
    """Bytes from `512MiB`, `1GiB`, `1.5G`, `2g`, `300MB`, `4096`.

    KiB/MiB/GiB/TiB and bare K/M/G/T are powers of 1024 (as docker and systemd read `1G`); KB/MB/
    GB/TB with the B are powers of 1000, as the article's MB; a plain number is bytes.
    """
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"not a size: {text!r} (use e.g. 512MiB, 1GiB, 1.5G)")
    unit = m.group("unit").lower()
    decimal = bool(unit) and bool(m.group("b")) and not m.group("i")
    value = float(m.group("num")) * (1000 if decimal else 1024) ** _POWERS[unit]
    if not math.isfinite(value) or value < 1:
        raise ValueError(f"size must be at least 1 byte, got {text!r}")
    return int(value)


def finite(value: float, what: str) -> float:
    """NaN passes every comparison a range check makes, so reject it (and infinity) by name."""
    if not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return value


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_env(items: Iterable[str]) -> dict[str, str]:
    """`NAME=VALUE` pairs (`sweep --env`) -> a dict; the value may be empty or hold `=`."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not _ENV_NAME.match(name):
            raise ValueError(f"--env: expected NAME=VALUE, got {item!r}")
        out[name] = value
    return out


def sweep_inputs(
    n_list: str, sleep_text: str, label: str | None, env_items: tuple[str, ...]
) -> tuple[list[int], SleepSpec, dict[str, str]]:
    """A sweep's --n, --sleep, --label and --env checked together: (ns, sleep, env). A
    ValueError names the option that is wrong."""
    try:
        ns = parse_n_list(n_list)
    except ValueError as e:
        raise ValueError(f"--n: {e}") from None
    sleep = SleepSpec.parse(sleep_text)
    if label is not None and not label.strip():
        raise ValueError("--label must not be empty")
    env = parse_env(env_items)
    from runner.tasks.proof import check_env  # here: runner.tasks loads the workloads, which import this

    check_env(list(env), "--env")
    return ns, sleep, env
