"""The http workload's table: per variant and C, the server idle and, per rate, latency (p50, p99,
p99.9 from the scheduled time), the server's CPU per 1,000 requests and its peak memory in the
window, or where it saturated (runner.workloads.http.analysis gives the cells)."""

from __future__ import annotations

from typing import Any

from runner.show.text import n_label
from runner.units import MB


def _ms(us: float | None) -> str:
    if us is None:
        return "?"
    return f"{us / 1000:.2f}" if us < 10_000 else f"{us / 1000:,.0f}"


def rate_cell(r: dict[str, Any] | None) -> str:
    """One (variant, C, R) cell in Markdown."""
    if r is None:
        return "—"
    if r["saturated"]:
        return f"**saturated**: {r['why']}"
    cpu = r.get("server_cpu_per_1k_s")
    peak = r.get("server_peak_rss")
    parts = [f"{_ms(r['p50_us'])} / {_ms(r['p99_us'])} / {_ms(r['p999_us'])} ms"]
    if cpu is not None:
        parts.append(f"{cpu * 1000:.0f} ms CPU")
    if peak is not None:
        parts.append(f"{peak / MB:,.1f} MB")
    if r.get("closed_by_server"):
        parts.append(f"{r['closed_by_server']:,.0f} closed by the server")
    return " · ".join(parts)


def http_table(recs: list[dict[str, Any]]) -> str:
    """Markdown: a row per (variant, C), a column per rate, from the records' `http` extras."""
    cells = sorted((r for r in recs if r.get("http")), key=lambda r: r["n"])  # by C, variants in order
    if not cells:
        return ""
    rates = sorted({rate for r in cells for rate in r["http"]["rates"]})
    lines = [
        "| variant | C | idle MB | " + " | ".join(f"{n_label(rate)}/s" for rate in rates) + " |",
        "|---|---|---|" + "---|" * len(rates),
    ]
    for r in cells:
        h = r["http"]
        idle = h.get("idle_rss")
        lines.append(
            f"| {r['variant']} | {n_label(r['n'])} | {'?' if idle is None else f'{idle / MB:,.1f}'} | "
            + " | ".join(rate_cell(h["rates"].get(rate)) for rate in rates)
            + " |"
        )
    lines.append("")
    lines.append(
        "Per rate: latency p50 / p99 / p99.9 in ms from each request's scheduled time (open loop: a "
        "stall counts in full), the server's CPU per 1,000 answers, and its peak RSS in the measured "
        "window; idle = its RSS once the C connections were open, before the first request. "
        "Medians over valid runs. **saturated**: the rate achieved fell over 1 % short, requests went "
        "unanswered, or p99 passed the SLO; no higher rate was sent. closed by the server: keep-alive "
        "connections the server closed after an answer (the client opened them again; their "
        "requests' wait counts)."
    )
    return "\n".join(lines) + "\n"


def client_line(n: int, client: dict[str, Any]) -> str:
    """One line about a run's load client, for `memrun inspect`."""
    summary = client.get("summary") or {}
    if not summary:
        return f"load client: no summary ({client.get('error') or client.get('exit_code')})"
    parts = [f"{n:,} connections", f"sent {summary.get('sent', 0):,}", f"wrong {summary.get('wrong', 0):,}"]
    if client.get("cpus"):
        parts.append(
            f"server CPUs {client['cpus'].get('server')}, client CPUs {client['cpus'].get('client')}"
        )
    if isinstance(client.get("cgroup_peak"), int):
        parts.append(f"its cgroup peak {client['cgroup_peak'] / MB:,.1f} MB")
    if isinstance(summary.get("cpu_s"), int | float):
        parts.append(f"CPU {summary['cpu_s']:.2f} s")
    return "load client: " + ", ".join(parts)
