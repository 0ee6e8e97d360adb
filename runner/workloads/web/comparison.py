"""The comparison with an independent load generator, stored and shown: one JSON line per
measured window (scripts/http_independent.py --out FILE), and the table of docs/http.md made from
those lines (`memrun derive independent FILE`), so the figures the docs quote are the stored
runs', never copied by hand.

A row of the table is one variant under one setup (C, the rate asked, the server's quota, the
request memrun's client sent): the median and range of each generator's answers per second over
its windows, their ratio, each client's CPU share and the server's CPU per 1,000 answers under
each (the figure that still compares when the machine gives the server a varying share)."""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

MEMRUN = "memrun"


@dataclass(frozen=True)
class Window:
    """One generator's measured window against one server."""

    variant: str
    generator: str  # "memrun", or the independent one with its version ("vegeta v12.13.0")
    c: int
    rate: int  # asked, per second
    warmup_s: float
    window_s: float
    server_quota: float | None  # the server's share of its core (cgroup v1 CFS quota), or None
    header: list[str] | None  # the header lines memrun's client sent after Host (None: Host alone)
    answers_per_s: float
    client_busy: float  # the generator's CPU share of the client's CPUs
    server_cpu_ms_per_1k: float | None
    machine: str = ""  # hostname, CPU model and kernel release, as the run's record names them
    at: str = ""  # when the window ended (UTC, ISO 8601)

    @classmethod
    def of(cls, row: dict[str, Any]) -> Window:
        return cls(**{k: row[k] for k in cls.__dataclass_fields__ if k in row})

    def setup(self) -> tuple[Any, ...]:
        return (self.variant, self.c, self.rate, self.server_quota, tuple(self.header or ()))


def append(path: Path, window: Window) -> None:
    """One more line in the file (made with its folder if missing), flushed at once: a comparison
    stopped halfway keeps the windows it measured."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(json.dumps(asdict(window), sort_keys=True) + "\n")
        f.flush()


def load(path: Path) -> list[Window]:
    """Every window stored in the file, in its order; a line that does not parse says where."""
    out: list[Window] = []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(Window.of(json.loads(line)))
        except (json.JSONDecodeError, TypeError) as e:
            raise ValueError(f"{path}:{i}: not a comparison window ({e})") from None
    return out


def _spread(values: Sequence[float]) -> str:
    return f"{statistics.median(values):,.0f} ({min(values):,.0f}–{max(values):,.0f})"


def _median(values: Iterable[float | None], fmt: str) -> str:
    got = [v for v in values if v is not None]
    return format(statistics.median(got), fmt) if got else "?"


def _setup_words(w: Window) -> str:
    held = f"server held to {w.server_quota:g} core" if w.server_quota else "server as run"
    sent = "vegeta's header lines" if w.header else "Host alone"
    return f"C = {w.c}, {w.rate:,}/s asked; {held}; memrun sent {sent}"


def table(windows: Sequence[Window]) -> str:
    """The markdown table: one row per variant and setup that both generators measured, in the
    order first stored; a setup only one generator measured is left out (it compares nothing)."""
    groups: dict[tuple[Any, ...], list[Window]] = {}
    for w in windows:
        groups.setdefault(w.setup(), []).append(w)
    lines = [
        "| variant | setup | windows | memrun answers/s | independent answers/s | memrun / independent "
        "| client busy, memrun / independent | server CPU ms per 1k answers, memrun / independent |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for group in groups.values():
        ours = [w for w in group if w.generator == MEMRUN]
        theirs = [w for w in group if w.generator != MEMRUN]
        if not ours or not theirs:
            continue
        names = sorted({w.generator for w in theirs})
        a = statistics.median(w.answers_per_s for w in ours)
        b = statistics.median(w.answers_per_s for w in theirs)
        lines.append(
            f"| {group[0].variant} | {_setup_words(group[0])}; against {', '.join(names)} "
            f"| {len(ours)} + {len(theirs)} | {_spread([w.answers_per_s for w in ours])} "
            f"| {_spread([w.answers_per_s for w in theirs])} | {a / b:.3f} "
            f"| {_median((w.client_busy for w in ours), '.2f')} / "
            f"{_median((w.client_busy for w in theirs), '.2f')} "
            f"| {_median((w.server_cpu_ms_per_1k for w in ours), '.1f')} / "
            f"{_median((w.server_cpu_ms_per_1k for w in theirs), '.1f')} |"
        )
    return "\n".join(lines) + "\n"
