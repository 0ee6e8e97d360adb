"""The http workload's cells: per (variant, C) the server idle, and per rate R what its valid runs
measured, pooled as HdrHistogram pools (counts added): latency from the scheduled time (the
unanswered requests censored in it), from the send, and the client's send lag; per run the
percentiles too, so that their spread shows; the rate achieved, the server's CPU per 1,000
answers and peak memory in the window, the connections it closed, whether the rate saturated the
server and whether the client was too late to tell (client-limited).

Runs of the first client (no send lag, 2-digit buckets) still load: a cell of only such runs is
marked `old_client`; where a cell has runs of both, the new client's are pooled and the old ones
set aside (counted), so that two precisions and two methods never mix in one figure.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

import pandas as pd

from runner.analysis.hdr import PERCENTILES, Hist, pooled, us
from runner.results.summary import counted_runs
from runner.workloads.web.judge import CLIENT_LAG, client_limited, saturation

LATENCY = (*PERCENTILES, "max_us")
HISTS = ("latency", "service", "send_lag", "censored")


def _median(values: Iterable[Any]) -> float | None:
    got = [float(v) for v in values if isinstance(v, int | float)]
    return statistics.median(got) if got else None


def _slo(row: pd.Series) -> float:
    params = row.get("params") if isinstance(row.get("params"), dict) else {}
    return float(params.get("slo") or 0.1)


def new_client(phase: dict[str, Any]) -> bool:
    """Whether a phase comes from this client (send lag measured, HdrHistogram kept)."""
    return isinstance(phase.get("send_lag"), dict)


def reading(h: Hist) -> dict[str, Any]:
    """A pooled histogram read: count, each percentile (us) with whether enough samples lie
    beyond it to show it (`shown`), min, max and mean; every value None when it is empty."""
    out: dict[str, Any] = {"count": h.count}
    out.update({k: us(h.percentile_ns(p)) for k, p in PERCENTILES.items()})
    out["shown"] = {k: h.shown(p) for k, p in PERCENTILES.items()}
    out["min_us"], out["max_us"], out["mean_us"] = us(h.min_ns()), us(h.max_ns()), us(h.mean_ns())
    return out


def _spread(phases: list[dict[str, Any]], part: str) -> dict[str, list[float]]:
    """Per percentile, the runs' own values (min and max), where there are two runs or more."""
    out = {}
    for k in (*PERCENTILES, "max_us"):
        got = [float(v) for ph in phases if isinstance(v := (ph.get(part) or {}).get(k), int | float)]
        if len(got) > 1:
            out[k] = [min(got), max(got)]
    return out


def _recv_lag(phases: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The client's receive lag over the phases that measured it (from the kernel's receive time
    of each answer to its read: a client figure that saturation leaves, unlike the send lag);
    None where none did (a client before it)."""
    got = [lag for ph in phases if isinstance(lag := ph.get("recv_lag"), dict) and lag.get("count")]
    return reading(pooled(got)) if got else None


def _rate_cell(rate: int, phases: list[tuple[dict[str, Any], float]]) -> dict[str, Any]:
    """One (variant, C, R) cell from its runs' phases (phase, slo)."""
    new = [(ph, slo) for ph, slo in phases if new_client(ph)]
    set_aside = len(phases) - len(new) if new else 0
    used = new or phases
    why = [saturation(ph, rate, slo) for ph, slo in used]
    saturated = sum(w is not None for w in why) * 2 >= len(why)
    plain = [ph for ph, _ in used]
    hists = {part: pooled(ph.get(part) for ph in plain) for part in HISTS}
    if not new:  # the first client's buckets: latency and nothing censored
        hists["latency"] = pooled(ph.get("latency") for ph in plain)
    lat = reading(hists["latency"])
    censored = hists["censored"].count
    cmin = hists["censored"].min_ns()
    lat["censored"] = censored
    lat["censored_min_us"] = us(cmin)
    # a percentile at or past the smallest censored value is a lower bound (the true one is larger)
    lat["lower_bound"] = {
        k: cmin is not None and v is not None and v * 1000 >= cmin for k, v in lat.items() if k in PERCENTILES
    }
    pooled_phase = {"latency": lat, "send_lag": reading(hists["send_lag"])} if new else {}
    srv = [ph.get("server") or {} for ph in plain]
    return {
        "runs": len(used),
        "old_client": not new,
        "set_aside_old": set_aside,
        "saturated": saturated,
        "why": next((w for w in why if w), None) if saturated else None,
        "client_limited": client_limited(pooled_phase) if new and not saturated else None,
        "achieved": _median(ph.get("achieved_rate") for ph in plain),
        "achieved_spread": sorted(float(ph.get("achieved_rate") or 0) for ph in plain),
        "scheduled": sum(int(ph.get("scheduled") or 0) for ph in plain),
        "latency": lat,
        "service": reading(hists["service"]),
        "send_lag": reading(hists["send_lag"]) if new else None,
        "recv_lag": _recv_lag(plain),
        "spread": _spread(plain, "latency"),
        **{k: lat[k] for k in LATENCY},
        "run_delay_s": _median(ph.get("run_delay_s") for ph in plain),
        "late_client": _median(ph.get("late_client") for ph in plain),
        "late_busy": _median(ph.get("late_busy") for ph in plain),
        "server_cpu_per_1k_s": _median(s.get("cpu_per_1k_s") for s in srv),
        "server_peak_rss": _median(s.get("peak_rss") for s in srv),
        "server_peak_cgroup": _median(s.get("peak_cgroup") for s in srv),
        "client_cpu_s": _median(ph.get("cpu_s") for ph in plain),
        "client_busy": _median(ph.get("client_busy") for ph in plain),
        "memrun_cpu_s": _median(ph.get("memrun_cpu_s") for ph in plain),
        "closed_by_server": _median(ph.get("closed_by_server") for ph in plain),
        "window_s": _median(ph.get("window_s") for ph in plain),
        "_hists": hists,
    }


def hist_cells(runs: pd.DataFrame) -> dict[tuple[str, int], dict[str, Any]]:
    """(variant, C) -> {"idle_rss", "idle_cgroup", "client_peak", "cpus", "rates": {R: cell}}
    from valid runs, each rate's cell with its pooled histograms under `_hists` (Hist objects,
    for figures and .hgrm files). A rate is saturated when most of its runs saturated (a tie:
    saturated)."""
    runs = counted_runs(runs)
    if runs.empty or "client" not in runs:
        return {}
    valid = runs[runs["verdict"] == "valid"]
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for (variant, c), cell in valid.groupby(["variant", "n"], sort=False):
        clients = [(r["client"], _slo(r)) for _, r in cell.iterrows() if isinstance(r["client"], dict)]
        if not clients:
            continue
        idle = [cl.get("idle") or {} for cl, _ in clients]
        by_rate: dict[int, list[tuple[dict[str, Any], float]]] = {}
        for cl, slo in clients:
            for ph in cl.get("phases") or []:
                by_rate.setdefault(round(float(ph["rate"])), []).append((ph, slo))
        out[(str(variant), int(c))] = {
            "idle_rss": _median(i.get("rss") for i in idle),
            "idle_cgroup": _median(i.get("cgroup") for i in idle),
            "client_peak": _median(cl.get("cgroup_peak") for cl, _ in clients),
            "cpus": (clients[0][0].get("cpus") or {}),
            "rates": {rate: _rate_cell(rate, phases) for rate, phases in sorted(by_rate.items())},
        }
    return out


def phase_cells(runs: pd.DataFrame) -> dict[tuple[str, int], dict[str, Any]]:
    """hist_cells without the histogram objects: what a report's records carry (JSON-ready)."""
    cells = hist_cells(runs)
    for cell in cells.values():
        for r in cell["rates"].values():
            r.pop("_hists", None)
    return cells


def too_few(reading_: dict[str, Any] | None, key: str) -> bool:
    """Whether a percentile of a pooled reading rests on too few samples to be shown."""
    return not reading_ or not (reading_.get("shown") or {}).get(key, False)


__all__ = ["CLIENT_LAG", "hist_cells", "new_client", "phase_cells", "reading", "too_few"]
