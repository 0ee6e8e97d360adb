"""The http workload's parameters as the user types them (`--rate 1k,10k,50k --warmup 10s
--window 20s --slo 100ms --server-cpus 0`), parsed and checked, and the CPU split between the
server and memrun's load client."""

from __future__ import annotations

import os
import re

from runner.inputs import parse_n

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(us|µs|ms|s|m)?\s*$")
_SCALE = {"us": 1e-6, "µs": 1e-6, "ms": 0.001, "s": 1.0, "m": 60.0, None: 1.0}


def duration(text: str) -> float:
    """Seconds from `20s`, `500ms`, `200us`, `1m` or a bare number of seconds (`--client-spin`
    is microseconds)."""
    m = _DURATION.match(text)
    if not m:
        raise ValueError(f"not a duration: {text!r} (say 20s, 500ms, 200us or 1m)")
    return float(m.group(1)) * _SCALE[m.group(2)]


def positive_duration(text: str) -> float:
    value = duration(text)
    if value <= 0:
        raise ValueError(f"must be more than 0, got {text!r}")
    return value


def rates(text: str) -> list[int]:
    """Requests per second, comma-separated, written as --n takes N (1k, 1e4, 50_000); run in
    rising order. A rate given twice is an error, as an N given twice is."""
    if not text.strip():
        raise ValueError("no rate given (say 1k,10k)")
    values = [parse_n(t) for t in text.split(",")]
    if any(r < 1 for r in values):
        raise ValueError("every rate must be at least 1 request a second")
    if len(set(values)) < len(values):
        raise ValueError(f"a rate is given more than once in {text!r}")
    return sorted(values)


_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110's token


def headers(text: str) -> list[str] | None:
    """Request header lines from `NAME: VALUE|NAME: VALUE` (None: none, the default, which every
    run from before the option stored too). Host is the client's own."""
    lines = [part.strip() for part in text.split("|") if part.strip()]
    for line in lines:
        name, colon, _ = line.partition(":")
        if not colon or not _HEADER_NAME.match(name.strip()) or name != name.strip():
            raise ValueError(f"not a header line: {line!r} (say 'User-Agent: x|Accept-Encoding: gzip')")
        if name.lower() == "host":
            raise ValueError("the client sends Host itself")
    if sum(len(line) + 2 for line in lines) >= 760:
        raise ValueError("the header lines are longer than the client's 760 bytes")
    return lines or None


def cpu_list(text: str) -> list[int]:
    """`auto`, or CPUs as taskset takes them (`0`, `0-3`, `0,2`): auto is []."""
    if text.strip() == "auto":
        return []
    out: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ValueError(f"not a CPU list: {text!r} (say auto, 0, 0-3 or 0,2)")
        out.update(range(int(lo), int(hi or lo) + 1))
    return sorted(out)


def split_cpus(server: list[int], allowed: set[int] | None = None) -> tuple[list[int], list[int]]:
    """(server's CPUs, client's CPUs): the server's as asked (auto: the first half of the CPUs this
    process may use, at least one), the client's the rest (all of them when nothing is left, which
    the run's record then shows: the two share CPUs)."""
    cpus = sorted(allowed if allowed is not None else os.sched_getaffinity(0))
    if not server:
        server = cpus[: max(1, len(cpus) // 2)]
    missing = [c for c in server if c not in cpus]
    if missing:
        raise ValueError(f"--server-cpus: CPU {missing[0]} is not one this process may use ({text(cpus)})")
    client = [c for c in cpus if c not in server] or list(server)
    return server, client


def memrun_cpus(server: list[int], client: list[int], allowed: set[int] | None = None) -> list[int]:
    """Where memrun itself (its sampler, a Python process) runs while the load lasts: on CPUs
    neither the server's nor the client's where there are any, else on the server's. Never on the
    client's when it has its own: the client's send times are the method's clock, and a sampler
    beside it makes it late; the server's share of its CPUs lost to the sampler is measured
    instead (`memrun_cpu_s` per phase)."""
    cpus = sorted(allowed if allowed is not None else os.sched_getaffinity(0))
    spare = [c for c in cpus if c not in server and c not in client]
    return spare or list(server)


def text(cpus: list[int]) -> str:
    """A CPU list as taskset reads it."""
    return ",".join(str(c) for c in cpus)
