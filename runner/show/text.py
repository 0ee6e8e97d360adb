"""Words shared by every view of stored results, so a figure and the table beside it say the same
thing in the same way: N labels, per-task costs, reasons that fit, sleep markers, machine captions."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pandas as pd

from runner.analysis.values import REASON_CHARS as REASON_CHARS  # re-exported: the words' own helpers
from runner.analysis.values import cell_status as cell_status
from runner.analysis.values import check_metric as check_metric
from runner.analysis.values import num as num
from runner.analysis.values import short as short
from runner.analysis.values import variant_info as variant_info
from runner.results.record import METRICS, TIME_METRICS
from runner.units import KIB

DAGGER = "†"


def n_label(n: int) -> str:
    """1, 10k, 100k, 1M: the article's column names, exact for any N (1500 stays 1,500)."""
    n = int(n)
    if n >= 1_000_000 and n % 100_000 == 0:
        return f"{n / 1_000_000:g}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return f"{n:,}"


def kib_per_task(value: float, unit: str = "task") -> str:
    """Two decimals: async tasks cost tenths of a KiB, and 0.2 vs 0.3 is the interesting part.
    Below that the baseline dominates (M(N) can even dip under M(1)); "≈0" says so, "-0.00" would not.
    unit: what N counts ("task", or "conn" for the connections workload)."""
    kib = value / KIB
    return f"≈0 KiB/{unit}" if abs(kib) < 0.005 else f"{kib:,.2f} KiB/{unit}"


def seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.0f} s"


def metric_name(metric: str) -> str:
    """The metric's description up to its parenthesis: long enough to be unambiguous in a title."""
    return {**METRICS, **TIME_METRICS}.get(metric, metric).split(" (")[0]


def metric_title(metric: str) -> str:
    """Sentence case without str.capitalize(), which would turn "RSS" into "rss"."""
    name = metric_name(metric)
    return name[:1].upper() + name[1:]


def usual_sleep(summary: pd.DataFrame) -> float | None:
    """The sleep most cells used; cells that differ were re-run longer (--sleep auto) and get marked."""
    sleeps = [s for s in map(num, summary.get("sleep_s", [])) if s is not None]
    return Counter(sleeps).most_common(1)[0][0] if sleeps else None


def unusual_sleep(row: pd.Series | dict[str, Any], usual: float | None) -> float | None:
    sleep = num(row.get("sleep_s"))
    return sleep if sleep is not None and usual is not None and sleep != usual else None


def sleep_note(summary: pd.DataFrame) -> str:
    usual = usual_sleep(summary)
    if usual is None or all(unusual_sleep(r, usual) is None for _, r in summary.iterrows()):
        return ""
    return f"{DAGGER} re-run with a longer sleep (--sleep auto); other cells slept {usual:g} s."


def _cpu(model: str) -> str:
    """Drop trademark noise so a CPU name fits in a subtitle."""
    model = re.sub(r"\((R|TM|tm)\)|\bCPU\b", "", model)
    return " ".join(model.split())


def machine(meta: dict[str, Any]) -> str:
    parts = []
    if meta.get("host"):
        parts.append(str(meta["host"]))
    if meta.get("cpu_model"):
        parts.append(_cpu(str(meta["cpu_model"])))
    if num(meta.get("cpus")) is not None:
        parts.append(f"{int(num(meta['cpus']))} CPUs")
    if num(meta.get("ram_bytes")) is not None:
        parts.append(f"{num(meta['ram_bytes']) / 1e9:.0f} GB RAM")
    if meta.get("kernel"):
        parts.append(f"Linux {meta['kernel']}")
    return ", ".join(parts)


def machines(sweeps: list[dict[str, Any]]) -> str:
    """Every distinct machine, since a results table may merge sweeps from several."""
    seen = list(dict.fromkeys(m for m in map(machine, sweeps) if m))
    if len(seen) <= 1:
        return seen[0] if seen else "machine unknown"
    full = f"{len(seen)} machines: " + "; ".join(seen)
    if len(full) <= 150:
        return full
    hosts = list(dict.fromkeys(str(s.get("host") or "?") for s in sweeps))
    return f"{len(seen)} machines: {', '.join(hosts)} (details in sweeps.jsonl)"


def dates(runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> str:
    """The day(s) measured: from sweep metadata, else the runs themselves."""
    stamps = [str(s["started_at"]) for s in sweeps if s.get("started_at")]
    if not stamps and "started_at" in runs:
        stamps = [s for s in runs["started_at"].dropna().astype(str)]
    days = sorted({s[:10] for s in stamps if len(s) >= 10})
    if not days:
        return "date unknown"
    return days[0] if len(days) == 1 else f"{days[0]} – {days[-1]}"


def caption(runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> str:
    return f"{machines(sweeps)} · {dates(runs, sweeps)}"


def file_word(label: str) -> str:
    """A label as it may appear in a file name (and an HTML id)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-.") or "label"
