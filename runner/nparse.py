"""Parse the task counts a user asks for: `1,1e4,10k,10_000` -> [1, 10000, ...].

Strict on purpose: a typo must stop the sweep before it runs for an hour, not after.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

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
