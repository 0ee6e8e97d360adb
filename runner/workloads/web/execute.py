"""One run of the http workload: the server pinned to its CPUs and measured as every program is
(launcher, run cgroup, sampling), memrun's load client on the other CPUs sending each rate, the
server's figures per phase read from the run's own timeline, and the run judged."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator, Sequence
from typing import Any

from runner.execute import Execution, Launch, Settings
from runner.limits import files
from runner.measure.result import Sample
from runner.tasks import Variant
from runner.workload import Workload
from runner.workloads.web import IMAGES
from runner.workloads.web.client import DRAIN_S, HttpClient, HttpReport
from runner.workloads.web.judge import judge
from runner.workloads.web.load import Load
from runner.workloads.web.params import memrun_cpus, split_cpus, text

CONNECT_RATE = 2000  # connections per second the default timeout allows for


def default_timeout(c: int, rates: Sequence[int], warmup_s: float, window_s: float) -> float:
    """Bound every run: connecting, then each phase with its drain, and a margin."""
    return 90 + c / CONNECT_RATE + len(rates) * (warmup_s + window_s + DRAIN_S + 2)


def free_port() -> int:
    """A port nothing listens on now (the kernel's choice); the server binds it a moment later."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def pinned(cpus: list[int]) -> Iterator[None]:
    """memrun itself (the thread that samples, and the threads it starts) on these CPUs while the
    run lasts (params.memrun_cpus: off the client's); put back after."""
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, cpus)
    except OSError:
        yield
        return
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _between(timeline: Sequence[Sample], t0: float, t1: float) -> list[Sample]:
    return [s for s in timeline if t0 <= s.t <= t1]


def _cpu(s: Sample) -> float | None:
    return None if s.user_s is None or s.sys_s is None else s.user_s + s.sys_s


def _own_cpu(samples: Sequence[tuple[float, float]], t0: float, t1: float) -> float | None:
    """memrun's own CPU seconds between monotonic times t0 and t1, from (monotonic, cpu) pairs
    taken at every sample (Load.own_cpu): the samples just before t0 and just after t1."""
    before = [cpu for t, cpu in samples if t <= t0]
    after = [cpu for t, cpu in samples if t >= t1]
    return round(after[0] - before[-1], 4) if before and after else None


def server_figures(
    timeline: Sequence[Sample],
    began_at: float,
    report: HttpReport,
    own_cpu: Sequence[tuple[float, float]] = (),
) -> tuple[dict | None, list[dict]]:
    """(idle, phases): the server once its C connections were open and before the first request
    (the last sample between the client's `connected C` and the first phase), and per phase its
    peak RSS and cgroup usage over the measured window and its CPU seconds there (per 1,000
    answers too). Sample times are seconds since the fork; the client's are time.monotonic(), as
    is began_at (the fork, within a sampling interval)."""
    idle = None
    if report.phases:
        first = float(report.phases[0]["mono_start"]) - began_at
        opened = (report.connected_at or 0.0) - began_at
        before = [s for s in timeline if opened <= s.t < first]
        if before:
            s = before[-1]
            idle = {"t": s.t, "rss": s.rss, "cgroup": s.cgroup, "threads": s.threads}
    phases = []
    for ph in report.phases:
        t0, t1 = float(ph["mono_window"]) - began_at, float(ph["mono_window_end"]) - began_at
        inside = _between(timeline, t0, t1)
        server: dict[str, Any] = {"samples": len(inside)}
        if inside:
            server["peak_rss"] = max(s.rss for s in inside)
            cg = [s.cgroup for s in inside if s.cgroup is not None]
            server["peak_cgroup"] = max(cg) if cg else None
            server["threads_max"] = max(s.threads for s in inside)
            a, b = _cpu(inside[0]), _cpu(inside[-1])
            if a is not None and b is not None and inside[-1].t > inside[0].t:
                # scaled from the sampled span to the whole window (they differ by one interval)
                cpu = (b - a) * (t1 - t0) / (inside[-1].t - inside[0].t)
                answered = int(ph.get("answered_in_window") or 0)
                server["cpu_s"] = round(cpu, 4)
                server["cpu_per_1k_s"] = round(cpu / answered * 1000, 6) if answered else None
        mono0, mono1 = float(ph["mono_window"]), float(ph["mono_window_end"])
        phases.append({**ph, "server": server, "memrun_cpu_s": _own_cpu(own_cpu, mono0, mono1)})
    return idle, phases


def execute(workload: Workload, variant: Variant, n: int, sleep: float, settings: Settings) -> Execution:
    """The variant's server with n keep-alive connections under each rate of settings.params."""
    params = {**workload.parse_parameters({}), **(settings.params or {})}
    server_cpus, client_cpus = split_cpus(params["server_cpus"])
    fds = files.run_nofile(n)  # the sweep checked cell_problem first
    port = free_port()
    launch = Launch.of(variant, n, sleep, settings, port=port, images=IMAGES)
    launch = launch.prefixed("taskset", "-c", text(server_cpus))
    own_cpus = memrun_cpus(server_cpus, client_cpus)
    client = HttpClient(
        port,
        n,
        IMAGES,
        nofile=fds.client,
        memory_cap=settings.spec.memory_cap,
        cpus=text(client_cpus),
        spin_s=float(params.get("client_spin") or 0.0),
        headers=params.get("header") or (),
    )
    load = Load(client, params["rate"], params["warmup"], params["window"], params["slo"])
    timeout = launch.timeout(default_timeout(n, params["rate"], params["warmup"], params["window"]))
    with pinned(own_cpus):
        result = launch.run(timeout, nofile=fds.server, account_sockets=True, companion=load)
    report = load.report()
    if report is not None and load.began_at is not None:
        idle, phases = server_figures(result.timeline, load.began_at, report, load.own_cpu)
        report = HttpReport(
            **{
                **report.__dict__,
                "idle": idle,
                "phases": phases,
                "cpus": {"server": text(server_cpus), "client": text(client_cpus), "memrun": text(own_cpus)},
            }
        )
    judged = judge(
        result,
        report,
        n,
        slo_s=params["slo"],
        per_task=variant.per_task,
        failures=variant.failures,
        workload=workload,
        limits=launch.limits(),
    )
    return launch.execution(timeout, result, judged, client=report.to_json() if report else None)
