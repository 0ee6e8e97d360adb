"""A runtime's own books: how a variant's manifest asks its runtime what its memory holds, from
[variant.books] (tasks/README.md, "The runtime's own books").

The books are read in a run of their own (`memrun explain --books`), never in a figure's run:
asking may itself cost memory (a JVM's Native Memory Tracking, jcmd's attach thread) or needs an
opt-in code path in the program (Go's runtime/metrics, Node's v8 statistics), which stays off by
default, so a figure's run is the same program doing the same thing. What the manifest gives:
- env: what turns the books on (a flag through an environment variable, or the program's switch);
- ask: commands run at the hold, with {pid} the program's, whose stdout is read (jcmd);
- signal: a signal sent at the hold that makes the program print (optional);
- wait_s: how long the program may take to print after `ready` or the signal;
- figures: a regex per figure over what was printed (the program's stdout and stderr and the
  commands' stdout), its unit, and the part of memrun's split it falls in (runner.analysis.explain:
  "stack", "heap", "anon", "file"; "anonymous" for all three anonymous parts together, where a
  runtime's mappings fall on either side of smaps' rules; "total" for the RSS at the hold), so the
  two views can be set side by side;
- note: what a reader needs to hold them side by side (goroutine stacks live in Go's heap arenas).
"""

from __future__ import annotations

import math
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.tasks.parse import ManifestError, read_str_map, read_strs

UNITS = {"B": 1, "KiB": 1024, "KB": 1024, "MiB": 1 << 20, "MB": 1 << 20}  # NMT's "KB" is 1024 B
PARTS = ("stack", "heap", "anon", "file", "anonymous", "total")  # anonymous: stack + heap + anon; total: RSS


@dataclass(frozen=True)
class Figure:
    name: str
    regex: re.Pattern[str]
    unit: int  # bytes per unit
    part: str  # the memrun part it falls in (PARTS)

    def read(self, text: str) -> int | None:
        """The figure in bytes from what the runtime printed: the sum of every match (one per
        line for a figure printed per space or per process), or None when nothing matched."""
        found = [float(m.group(1)) for m in self.regex.finditer(text)]
        return int(sum(found) * self.unit) if found else None


@dataclass(frozen=True)
class Books:
    what: str
    env: dict[str, str] = field(default_factory=dict)
    ask: list[list[str]] = field(default_factory=list)
    signal: int | None = None
    wait_s: float = 2.0
    figures: list[Figure] = field(default_factory=list)
    note: str = ""

    def read(self, text: str) -> dict[str, int]:
        """Every figure found in the printed text, in bytes."""
        out = {}
        for f in self.figures:
            value = f.read(text)
            if value is not None:
                out[f.name] = value
        return out


def read_books(data: Any, where: str, path: Path) -> Books | None:
    """[variant.books], checked; None when the variant has none."""
    if data is None:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("what"), str):
        raise ManifestError(f"{path}: {where} must be a table with a `what`")
    sig = None
    if "signal" in data:
        try:
            sig = int(signal.Signals[str(data["signal"])])
        except KeyError:
            raise ManifestError(f"{path}: {where}.signal: no signal {data['signal']!r}") from None
    figures = []
    for i, spec in enumerate(data.get("figure", [])):
        name, regex, unit, part = (spec.get(k) for k in ("name", "regex", "unit", "part"))
        if not isinstance(name, str) or not isinstance(regex, str):
            raise ManifestError(f"{path}: {where}.figure[{i}] needs a name and a regex")
        if unit not in UNITS:
            raise ManifestError(f"{path}: {where}.figure[{i}].unit must be one of {', '.join(UNITS)}")
        if part not in PARTS:
            raise ManifestError(f"{path}: {where}.figure[{i}].part must be one of {', '.join(PARTS)}")
        try:
            pattern = re.compile(regex, re.M)
        except re.error as e:
            raise ManifestError(f"{path}: {where}.figure[{i}].regex: {e}") from None
        if pattern.groups < 1:
            raise ManifestError(f"{path}: {where}.figure[{i}].regex needs a group: the number")
        figures.append(Figure(name, pattern, UNITS[unit], part))
    if not figures:
        raise ManifestError(f"{path}: {where} needs at least one [[…figure]]")
    return Books(
        what=data["what"],
        env=read_str_map(data.get("env", {}), f"{where}.env", path),
        ask=[read_strs(c, f"{where}.ask", path) for c in data.get("ask", [])],
        signal=sig,
        wait_s=_read_wait(data.get("wait_s", 2.0), f"{where}.wait_s", path),
        figures=figures,
        note=str(data.get("note", "")),
    )


def _read_wait(value: object, where: str, path: Path) -> float:
    """How long to wait for the books, in seconds: a finite number, not negative (TOML allows
    `nan` and `inf`, and a negative wait would fail later without naming the manifest)."""
    wrong = f"{path}: {where} must be a finite number of seconds, not negative ({value!r})"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ManifestError(wrong)
    if not math.isfinite(value) or value < 0:
        raise ManifestError(wrong)
    return float(value)
