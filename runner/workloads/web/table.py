"""The http workload's table: per variant and C, the server idle and, per rate, latency (p50, p99,
p99.9 from the scheduled time, pooled over the valid runs, with the runs' spread), the client's
send lag, the server's CPU per 1,000 answers, its peak memory in the window and the connections
it closed; or where the rate saturated the server (what it reached, the share censored), or
where the client was too late for the latency to be the server's (runner.workloads.web.analysis
gives the cells)."""

from __future__ import annotations

from typing import Any

from runner.show.text import n_label
from runner.units import MB
from runner.workloads.web.analysis import too_few
from runner.workloads.web.judge import CLIENT_LAG


def _ms(us: float | None) -> str:
    if us is None:
        return "?"
    return f"{us / 1000:.2f}" if us < 10_000 else f"{us / 1000:,.0f}"


def _pct(lat: dict[str, Any], key: str) -> str:
    """One pooled percentile: `too few` with under 10 samples beyond it, `≥ x` where censored
    requests reach it (a lower bound), else its value in ms."""
    if too_few(lat, key):
        return "too few"
    text = _ms(lat.get(key))
    return f"≥ {text}" if (lat.get("lower_bound") or {}).get(key) else text


def _spread(r: dict[str, Any], key: str) -> str:
    got = (r.get("spread") or {}).get(key)
    return f" ({_ms(got[0])}–{_ms(got[1])} over {r['runs']} runs)" if got else ""


def _extras(r: dict[str, Any]) -> list[str]:
    cpu = r.get("server_cpu_per_1k_s")
    peak = r.get("server_peak_rss")
    parts = []
    if cpu is not None:
        parts.append(f"CPU {cpu * 1000:.0f} ms/1k")
    if peak is not None:
        parts.append(f"{peak / MB:,.1f} MB")
    if r.get("closed_by_server"):
        parts.append(f"{r['closed_by_server']:,.0f} closed by the server")
    return parts


def rate_cell(r: dict[str, Any] | None) -> str:
    """One (variant, C, R) cell in Markdown."""
    if r is None:
        return "—"
    lat = r.get("latency") or {}
    old = "old client: " if r.get("old_client") else ""
    if r["saturated"]:
        text = f"{old}**saturated**: reached {r['achieved'] or 0:,.0f}/s"
        if lat.get("censored") and r.get("scheduled"):
            text += (
                f", {lat['censored'] / r['scheduled']:.0%} of the window's requests unanswered "
                f"(censored at ≥ {_ms(lat.get('censored_min_us'))} ms)"
            )
        if r.get("why") and ("client" in r["why"] or "SLO" in r["why"]):
            text += f" ({r['why']})"
        return " · ".join([text, *_recv(r), *_extras(r)])
    if r.get("client_limited"):
        lag = (r.get("send_lag") or {}).get("p99_us")
        return " · ".join(
            [f"**client-limited**: send lag p99 {_ms(lag)} ms, over {CLIENT_LAG:.0%} of p99", *_extras(r)]
        )
    p50, p99, p999 = (_pct(lat, k) for k in ("p50_us", "p99_us", "p999_us"))
    parts = [f"{old}{p50} / {p99}{_spread(r, 'p99_us')} / {p999} ms"]
    lag = r.get("send_lag")
    if lag and lag.get("count"):
        parts.append(f"lag p99 {_pct(lag, 'p99_us')} ms")
    return " · ".join(parts + _recv(r) + _extras(r))


def _recv(r: dict[str, Any]) -> list[str]:
    """The client's receive lag, where it was measured: its own figure, saturated or not."""
    lag = r.get("recv_lag")
    return [f"receive lag p99 {_pct(lag, 'p99_us')} ms"] if lag and lag.get("count") else []


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
        "stall counts in full), the valid runs' histograms pooled (HdrHistogram, 3 significant "
        "digits), the runs' own p99 in brackets; `too few`: under 10 samples lie beyond that "
        "percentile; `≥`: requests that got no answer by the end of the drain are counted there "
        "(censored), so the value is a lower bound. lag: the client's send lag p99 (actual send "
        "minus scheduled time, for requests whose connection was idle when due). receive lag: the "
        "client's p99 from the kernel's receive time of each answer to its read (latency ends at "
        "the receive time; runs whose client recorded it). CPU: the server's "
        "CPU time per 1,000 answers at that rate (it falls as the rate rises: never read its "
        "inverse at one rate as a rate a core can hold). MB: the server's peak RSS in the window. "
        "idle = its RSS once the C connections were open, before the first request. "
        f"**client-limited**: the client's send lag p99 was over {CLIENT_LAG:.0%} of the latency p99, "
        "so the latency is not shown as the server's. **saturated**: the rate achieved fell over "
        "1 % short, requests went unanswered, or p99 passed the SLO; no higher rate was sent. "
        "closed by the server: keep-alive connections the server closed in the phase (the client "
        "opened them again; their requests' wait counts): where they are many, the cell measures "
        "connection churn as much as requests. old client: runs of memrun's first client, kept "
        "as they were measured."
    )
    return "\n".join(lines) + "\n"


def client_line(n: int, client: dict[str, Any]) -> str:
    """One line about a run's load client, for `memrun inspect`."""
    summary = client.get("summary") or {}
    if not summary:
        return f"load client: no summary ({client.get('error') or client.get('exit_code')})"
    parts = [f"{n:,} connections", f"sent {summary.get('sent', 0):,}", f"wrong {summary.get('wrong', 0):,}"]
    for key, words in (("bad_framing", "bad framing"), ("partial_sends", "partial sends")):
        if summary.get(key):  # only where there were any (and never in a record from before them)
            parts.append(f"{words} {summary[key]:,}")
    if client.get("cpus"):
        cpus = client["cpus"]
        parts.append(f"server CPUs {cpus.get('server')}, client CPUs {cpus.get('client')}")
        if cpus.get("memrun"):
            parts.append(f"memrun's CPUs {cpus['memrun']}")
    if summary.get("wait"):
        parts.append(f"timed wait {summary['wait']}, timer slack {summary.get('timer_slack_ns')} ns")
    if isinstance(client.get("cgroup_peak"), int):
        parts.append(f"its cgroup peak {client['cgroup_peak'] / MB:,.1f} MB")
    if isinstance(summary.get("cpu_s"), int | float):
        parts.append(f"CPU {summary['cpu_s']:.2f} s")
    return "load client: " + ", ".join(parts)
