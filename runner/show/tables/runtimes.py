"""The runtimes' table: the answer per runtime, grouped the way readers think of runtimes.

OS threads, green threads and actors, async runtimes: each variant's `model` (its manifest says
it, the sweep stores it); within a group rows go by per-task cost, smallest first, each with its
idiom, its memory at every N and its cost per task at the largest N it has a figure for. Only
the installed builds: a runtime at a chosen version (`go@1.22.0`) is a point of the version
axis, which has its own section, never a row here.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from runner.analysis.records import records
from runner.results.groups import groups
from runner.show.text import n_label, short, variant_info
from runner.units import KIB, mb

# The groups, in the order a reader meets them, and what each is called.
MODELS = {"os-threads": "OS threads", "green-threads": "Green threads and actors", "async": "Async runtimes"}
OTHER = "Other"


def installed(runs: pd.DataFrame) -> pd.DataFrame:
    """The installed builds' runs: none at a chosen version (`version_of`, or a name@version)."""
    if runs.empty:
        return runs
    keep = ~runs["variant"].astype(str).str.contains("@")
    if "version_of" in runs:
        keep &= runs["version_of"].isna()
    return runs[keep]


def _cost(recs: list[dict[str, Any]]) -> tuple[float | None, int | None]:
    """KiB per task at the largest N with a figure, and that N."""
    found = [r for r in recs if r["per_task_bytes"] is not None]
    if not found:
        return None, None
    top = max(found, key=lambda r: r["n"])
    return top["per_task_bytes"] / KIB, top["n"]


def _cell(rec: dict[str, Any] | None) -> str:
    if rec is None:
        return "—"
    if rec["median_bytes"] is None:
        return f"*{rec['verdict']}*"
    return mb(rec["median_bytes"])


def markdown(
    runs: pd.DataFrame,
    sweeps: list[dict[str, Any]],
    metric: str = "peak_rss",
    models: dict[str, str] | None = None,
) -> str:
    """One table per group (and per label where the runs hold several), with its heading."""
    runs = installed(runs)
    if runs.empty:
        return ""
    found = groups(runs, sweeps)
    info = variant_info(sweeps)
    out: list[str] = []
    for g in found:
        recs = records(g.runs, metric)
        ns = sorted({r["n"] for r in recs})
        by_variant: dict[str, list[dict[str, Any]]] = {}
        for r in recs:
            by_variant.setdefault(str(r["variant"]), []).append(r)
        grouped: dict[str, list[tuple[float, str]]] = {}
        for variant, mine in by_variant.items():
            model = info.get(variant, {}).get("model") or (models or {}).get(variant)
            cost, _ = _cost(mine)
            grouped.setdefault(MODELS.get(model or "", OTHER), []).append(
                (cost if cost is not None else 1e12, variant)
            )
        if len(found) > 1:
            out += [f"**{g.label}**", ""]
        for title in [*MODELS.values(), OTHER]:
            if title not in grouped:
                continue
            out += [f"**{title}**", ""]
            out += ["| variant | idiom | " + " | ".join(n_label(n) for n in ns) + " | KiB per task |"]
            out += ["|---|---|" + "---|" * len(ns) + "---|"]
            for _, variant in sorted(grouped[title]):
                mine = {r["n"]: r for r in by_variant[variant]}
                cost, at = _cost(by_variant[variant])
                idiom = short(info.get(variant, {}).get("idiom", ""), 110).replace("|", "\\|")
                cells = " | ".join(_cell(mine.get(n)) for n in ns)
                per = f"{cost:,.2f} at {n_label(at)}" if cost is not None and at is not None else "—"
                out.append(f"| {variant} | {idiom} | {cells} | {per} |")
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
