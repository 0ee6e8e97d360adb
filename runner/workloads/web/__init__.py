"""The http workload (this package is `web`, so as not to take the standard library's `http`): a
keep-alive HTTP/1.1 service under a steady request rate (tasks/README.md, "HTTP protocol"): its memory
idle and under load, its latency measured from each request's scheduled time (no coordinated
omission), and its CPU per request.

The server is measured as every program is (launcher, run cgroup, sampling); what differs lives
here: memrun's own open-loop load client (client.c, driven by client.py) opens C connections from
a cgroup and CPUs of its own, then sends at each rate R for a warm-up and a measured window
(load.py); judge.py turns the server's end and the client's phases into the run's verdict;
execute.py runs one cell. This module only describes the workload.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runner.workload import Parameter, Words, register
from runner.workloads.descriptors import HoldsDescriptors
from runner.workloads.views import ShowsInPackage
from runner.workloads.web import params as p

IMAGES = 1000  # the redirect contest's avatars: `GET /` redirects to /Renard-<1..IMAGES>.png


class Http(HoldsDescriptors, ShowsInPackage):
    name = "http"
    words = Words(
        noun="connections",
        unit="conn",
        per="connection",
        title="keep-alive HTTP connections under load",
        hold="load",
        spawn="open",
        against="against N keep-alive connections under load",
    )
    package = "runner.workloads.web"
    holds_after_ready = True
    about = (
        "a keep-alive HTTP/1.1 server on 127.0.0.1 with N (C) connections from memrun's own open-loop "
        "load client, sent each --rate in turn"
    )
    sweep_help = (
        "--workload http measures an HTTP service under a steady request rate: N is C, the keep-alive "
        "connections memrun's open-loop load client opens (default 100 and 10k); the server "
        '(tasks/README.md, "HTTP protocol") runs pinned to its CPUs, the client on the others, and each '
        "--rate is sent for --warmup, then measured for --window. Latency counts from each request's "
        "scheduled time (no coordinated omission). A rate the server cannot keep (over 1 % short, or "
        'p99 past --slo) is "saturated": a finding of a valid run, and no higher rate is sent.'
    )
    shown_help = (
        "http: each rate's latency, CPU per 1,000 answers and memory idle and under load, in a table "
        "and in figures (http-*), and the latencies as .hgrm percentile files beside them."
    )
    placeholders = ("port", "images")
    default_ns = "100,1e4"
    parameters = (
        Parameter(
            "rate",
            "1k,10k,50k",
            "requests per second, comma-separated, sent in rising order "
            "(a rate that saturates the server ends the run's load)",
            p.rates,
            metavar="R1,R2,…",
        ),
        Parameter(
            "warmup",
            "10s",
            "each rate's warm-up before its measured window (not recorded)",
            p.duration,
            metavar="DURATION",
        ),
        Parameter("window", "20s", "each rate's measured window", p.positive_duration, metavar="DURATION"),
        Parameter(
            "slo",
            "100ms",
            "a rate whose p99 latency (from the scheduled time) passes this saturated the server",
            p.positive_duration,
            identity=False,
            metavar="DURATION",
        ),
        Parameter(
            "client_spin",
            "0",
            "the client polls instead of sleeping for this long before each send falls due "
            "(0: it sleeps until then): a CPU woken from idle runs it tens of microseconds late; "
            "its send lag is measured either way",
            p.duration,
            identity=False,
            metavar="DURATION",
        ),
        Parameter(
            "server_cpus",
            "auto",
            "the server's CPUs as taskset takes them (auto: the first "
            "half); memrun's load client gets the rest, and memrun itself any CPU left "
            "over, else the server's (never the client's)",
            p.cpu_list,
            metavar="CPUS",
        ),
        Parameter(
            "header",
            "",
            "header lines the client sends after Host in every request, `|` between two "
            "(none by default: `GET / HTTP/1.1` and Host alone); a server's cost per request "
            "grows with what it parses, so this sends what another generator sends",
            p.headers,
            metavar="'NAME: VALUE|…'",
        ),
    )
    validity = (
        "A run is a figure only if the server served until memrun stopped it after the last rate, "
        "memrun's load client opened all C connections, `GET /memrun-404` answered 404, and every "
        "answer to `GET /` was a 302 to /Renard-K.png. A rate whose achieved rate fell over 1 % short, "
        "whose requests went unanswered, or whose p99 passed the SLO saturated the server: a finding "
        "of a valid run, and no higher rate is sent. Latency counts from each request's scheduled "
        "time (open loop, no coordinated omission)."
    )
    program_html = (
        "Each server program takes <code>PORT IMAGES</code> and serves HTTP/1.1 on 127.0.0.1 with its "
        "ecosystem's standard server: <code>GET /</code> answers 302 to a random "
        "<code>/Renard-K.png</code>, anything else 404. memrun pins it to its CPUs, opens C keep-alive "
        "connections from its own load client (its own cgroup and CPUs), sends each rate open loop "
        "(a warm-up, then a measured window), and records, per run:"
    )

    def page_title(self, metric_title: str) -> str:
        return f"{metric_title} of an HTTP server with N {self.words.title}"

    def progress(self, record: Any) -> str:
        """The rates as the run judged them (`1,000/s p99 0.21 ms; ...`), or when it was open."""
        if record.verdict == "valid" and "; " in (record.reason or ""):
            return record.reason.split("; ", 1)[1]
        client = record.client or {}
        opened = client.get("connected_s")
        return f"open {opened:.1f} s" if isinstance(opened, int | float) else "not open"

    def cell_problem(self, n: int) -> tuple[str, str, str | None] | None:
        """Past the descriptors this process can grant for C connections (both ends)."""
        from runner.limits import files

        try:
            files.run_nofile(n)
        except files.NofileError as e:
            text = str(e)
            problem, _, remedy = text.partition("): ")
            return ("fd-limit", f"not run: {problem + ')' if remedy else text}", remedy or None)
        return None

    def pinned_cpus(self, client: Mapping[str, Any] | None) -> str | None:
        """The server's taskset list, as the load client recorded it."""
        return ((client or {}).get("cpus") or {}).get("server")


HTTP = register(Http())
