"""Values every view of stored results reads the same way: a summary number that may be NaN, a cell's
status where it has no number, the metric a user named, a variant's recorded family and idiom.
Below both the analysis and the showing, so that neither has to import the other for them."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from runner.results.record import METRICS

REASON_CHARS = 40


def num(value: Any) -> float | None:
    """A summary number, or None: summarize() leaves None or NaN depending on the column's dtype."""
    if value is None:
        return None
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def short(text: str | None, limit: int = REASON_CHARS) -> str:
    """A reason that fits beside a bar; the full one is in runs.jsonl."""
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def cell_status(row: pd.Series | dict[str, Any]) -> str:
    """What to write instead of a number: the verdict and short reason (never a 0). Valid runs
    that lack the metric (no cgroup on that machine) need no verdict, only the reason."""
    verdict = str(row.get("verdict") or "no data")
    reason = row.get("reason")
    reason = reason if isinstance(reason, str) else ""
    if verdict == "valid":
        return reason or "no data"
    return f"{verdict}: {reason}" if reason else verdict


def check_metric(metric: str) -> None:
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")


def variant_info(sweeps: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """variant -> {"family", "idiom"} as the sweeps recorded them (newest wins); empty for results
    written before sweeps recorded them."""
    out: dict[str, dict[str, str]] = {}
    for meta in sorted(sweeps, key=lambda m: str(m.get("started_at", ""))):
        for name, info in (meta.get("variant_info") or {}).items():
            if isinstance(info, dict):
                out[name] = {k: str(v) for k, v in info.items()}
    return out
