"""Synthetic stored runs for the report's tests: the 2023 article's final table, with its failures,
as rows a sweep would have stored (no task is run)."""

from __future__ import annotations

from typing import Any

import pandas as pd

# The 2023 article's final table (MB), with its failures, as the article published it.
ARTICLE = {
    "rust-threads": (2.5, 48.3, None, None),
    "rust-tokio": (3.0, 4.6, 23.7, 213.6),
    "rust-async-std": (3.0, 8.1, 54.6, 527.7),
    "go": (1.8, 28.6, 269, 2658),
    "java-threads": (38.2, 244.4, None, None),
    "java-virtual": (40.1, 78.5, 223, 1154),
    "dotnet": (131.1, 131.4, 130.9, 461),
    "node": (36.2, 48.3, 112.5, 494),
    "python": (17.3, 40.0, 240.5, 2232),
    "elixir": (57.4, 99.4, 445, 4009),
}
NS = (1, 10_000, 100_000, 1_000_000)
TOKIO_1M = (200.0e6, 213.6e6, 231.0e6)  # 14% spread: flagged


MAP_COUNT = "thread limit: vm.max_map_count (65530)"


LATE = "spawn outlasted sleep: ready after 132 s > sleep 10 s"


def run(variant: str, n: int, verdict: str = "valid", peak: float | None = None, **kw: Any) -> dict[str, Any]:
    row = {
        "variant": variant,
        "n": n,
        "repeat": 0,
        "verdict": verdict,
        "reason": None,
        "peak_rss": peak,
        "cgroup_peak": None if peak is None else peak * 1.2,
        "sampled_peak_rss": peak,
        "ready_s": 0.8 if verdict == "valid" else None,
        "sleep_s": 10.0,
        "superseded": False,
        "started_at": "2024-05-01T10:00:00+00:00",
    }
    row.update(kw)
    return row


def article_runs() -> pd.DataFrame:
    """The article's table as stored runs, plus the awkward cases a real sweep produces:
    a failed cell (no number), an invalid one (a number that must not be shown), repeats within
    and beyond 5%, and a cell re-run with a longer sleep by --sleep auto."""
    rows = []
    for variant, values in ARTICLE.items():
        for n, value in zip(NS, values, strict=True):
            if value is not None and (variant, n) not in {("rust-tokio", 1_000_000), ("elixir", 1_000_000)}:
                rows.append(run(variant, n, peak=value * 1e6))
    rows.append(run("rust-threads", 100_000, "failed", reason=MAP_COUNT, signal="SIGABRT"))
    rows.append(run("rust-threads", 1_000_000, "failed", reason=MAP_COUNT, signal="SIGABRT"))
    rows.append(run("java-threads", 100_000, "invalid", 300e6, reason=LATE, ready_s=132.0))
    rows.append(run("java-threads", 1_000_000, "failed", reason="thread limit: kernel.pid_max (32768)"))
    for i, peak in enumerate(TOKIO_1M):
        rows.append(run("rust-tokio", 1_000_000, peak=peak, repeat=i, ready_s=0.5 + i * 0.1))
    rows.append(run("go", 100_000, peak=271e6, repeat=1))  # second repeat, within 5%
    rows.append(run("elixir", 1_000_000, "invalid", 3900e6, reason=LATE, superseded=True, ready_s=31.0))
    rows.append(run("elixir", 1_000_000, peak=4009e6, sleep_s=40.0, ready_s=31.0))
    return pd.DataFrame(rows)


SWEEPS = [
    {
        "sweep_id": "s1",
        "started_at": "2024-05-01T09:58:00+00:00",
        "host": "bench1",
        "cpu_model": "Intel(R) Xeon(R) CPU E3-1505M v5 @ 2.80GHz",
        "cpus": 8,
        "ram_bytes": 32_000_000_000,
        "kernel": "5.15.0-91-generic",
    }
]
