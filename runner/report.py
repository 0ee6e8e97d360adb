"""Tables from stored results: variants x N, never re-running anything.

Markdown is for pasting into a blog post next to the 2023 article's table (MB, 10^6 bytes, like
the article); CSV and JSON are tidy records, one per (variant, N), with raw numbers for other tools.
The small text helpers here (N labels, units, machine and date captions) are shared with plot.py so
that a figure and the table beside it say the same thing in the same words.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from typing import Any

import pandas as pd

from runner.results import METRICS, SPREAD_LIMIT, summarize
from runner.textfmt import MB, mb

KIB = 1024
FORMATS = ("md", "csv", "json")
REASON_CHARS = 40
DAGGER = "†"


# --- shared text helpers -------------------------------------------------------------------------


def num(value: Any) -> float | None:
    """A summary number, or None: summarize() leaves None or NaN depending on the column's dtype."""
    if value is None:
        return None
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def n_label(n: int) -> str:
    """1, 10k, 100k, 1M: the article's column names, exact for any N (1500 stays 1,500)."""
    n = int(n)
    if n >= 1_000_000 and n % 100_000 == 0:
        return f"{n / 1_000_000:g}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return f"{n:,}"


def kib_per_task(value: float) -> str:
    """Two decimals: async tasks cost tenths of a KiB, and 0.2 vs 0.3 is the interesting part.
    Below that the baseline dominates (M(N) can even dip under M(1)); "≈0" says so, "-0.00" would not."""
    kib = value / KIB
    return "≈0 KiB/task" if abs(kib) < 0.005 else f"{kib:,.2f} KiB/task"


def seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.0f} s"


def short(text: str | None, limit: int = REASON_CHARS) -> str:
    """A reason that fits beside a bar; the full one is in runs.jsonl."""
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def metric_name(metric: str) -> str:
    """The metric's description up to its parenthesis: long enough to be unambiguous in a title."""
    return METRICS.get(metric, metric).split(" (")[0]


def metric_title(metric: str) -> str:
    """Sentence case without str.capitalize(), which would turn "RSS" into "rss"."""
    name = metric_name(metric)
    return name[:1].upper() + name[1:]


def cell_status(row: pd.Series | dict[str, Any]) -> str:
    """What to write instead of a number: the verdict and short reason (never a 0). Valid runs
    that lack the metric (no cgroup on that machine) need no verdict, only the reason."""
    verdict = str(row.get("verdict") or "no data")
    reason = row.get("reason")
    reason = reason if isinstance(reason, str) else ""
    if verdict == "valid":
        return reason or "no data"
    return f"{verdict}: {reason}" if reason else verdict


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


# --- the table -----------------------------------------------------------------------------------


def check_metric(metric: str) -> None:
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")


def records(runs: pd.DataFrame, metric: str = "peak_rss") -> list[dict[str, Any]]:
    """Tidy records, raw numbers: bytes and seconds, plus MB / KiB for readers of the CSV."""
    check_metric(metric)
    if runs.empty:
        return []
    out = []
    for _, r in summarize(runs, metric).iterrows():
        median, lo, hi, per_task = (num(r.get(k)) for k in ("median", "min", "max", "per_task"))
        out.append(
            {
                "variant": r["variant"],
                "n": int(r["n"]),
                "metric": metric,
                "verdict": r["verdict"],
                "reason": r["reason"] if isinstance(r["reason"], str) and median is None else None,
                "runs": int(r["runs"]),
                "valid": int(r["valid"]),
                "median_bytes": median,
                "min_bytes": lo,
                "max_bytes": hi,
                "median_mb": None if median is None else median / MB,
                "min_mb": None if lo is None else lo / MB,
                "max_mb": None if hi is None else hi / MB,
                "spread": num(r.get("spread")),
                "spread_flag": bool(r["spread_flag"]),
                "per_task_bytes": per_task,
                "per_task_kib": None if per_task is None else per_task / KIB,
                "spawn_s": num(r.get("spawn_s")),
                "sleep_s": num(r.get("sleep_s")),
            }
        )
    return out


def _md_cell(rec: dict[str, Any], usual: float | None) -> str:
    if rec["median_bytes"] is None:
        text = f"*{short(cell_status(rec), 80)}*"
    else:
        text = f"**{mb(rec['median_bytes'])}**"
        if rec["valid"] > 1:
            text += f" ({rec['min_mb']:,.1f}–{rec['max_mb']:,.1f})"
        if rec["spread_flag"]:
            text += f" ⚠{rec['spread'] * 100:.0f}%"
        if rec["per_task_bytes"] is not None:
            text += f" · {kib_per_task(rec['per_task_bytes'])}"
        if rec["spawn_s"] is not None:
            text += f" · spawn {seconds(rec['spawn_s'])}"
    sleep = unusual_sleep(rec, usual)
    if sleep is not None:
        text += f" {DAGGER}{sleep:g} s"
    return text.replace("|", "\\|")


def legend(metric: str, summary: pd.DataFrame) -> str:
    """One line under the table, so a pasted table carries its own units."""
    line = (
        f"MB = 10^6 bytes of {METRICS.get(metric, metric)}: median over valid repeats, "
        f"(min–max) when repeated, ⚠ when repeats differ by more than {SPREAD_LIMIT:.0%}. "
        "KiB/task = (M(N) − M(1)) / N in KiB (1024 bytes). "
        "spawn = seconds until the program printed its `ready N` line. "
        "A cell without a valid run (exit 0 and `ready N` before the sleep ran out) shows its "
        "verdict and reason instead of a number."
    )
    note = sleep_note(summary)
    return f"{line} {note}" if note else line


def to_markdown(
    runs: pd.DataFrame, metric: str = "peak_rss", sweeps: list[dict[str, Any]] | None = None
) -> str:
    recs = records(runs, metric)
    if not recs:
        return "*no runs*\n"
    table = pd.DataFrame(recs)
    usual = usual_sleep(table)
    ns = sorted(table["n"].unique())
    variants = list(dict.fromkeys(table["variant"]))
    cells = {(r["variant"], r["n"]): _md_cell(r, usual) for r in recs}
    lines = [
        "| variant | " + " | ".join(n_label(n) for n in ns) + " |",
        "|---|" + "---|" * len(ns),
    ]
    for v in variants:
        lines.append(f"| {v} | " + " | ".join(cells.get((v, n), "—") for n in ns) + " |")
    head = f"{metric_title(metric)}, {caption(runs, sweeps)}\n\n" if sweeps is not None else ""
    return head + "\n".join(lines) + "\n\n" + legend(metric, table) + "\n"


def render(
    runs: pd.DataFrame, fmt: str = "md", metric: str = "peak_rss", sweeps: list[dict[str, Any]] | None = None
) -> str:
    """The table as md, csv or json. `sweeps` (optional) adds a machine and date line to md."""
    if fmt == "md":
        return to_markdown(runs, metric, sweeps)
    if fmt == "csv":
        return pd.DataFrame(records(runs, metric)).to_csv(index=False)
    if fmt == "json":
        return json.dumps(records(runs, metric), indent=1) + "\n"
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
