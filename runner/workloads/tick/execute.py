"""One run of the tick workload: the program measured as a sleep program is (launcher, run
cgroup, sampling, timeouts), its own account read from its last lines, its CPU per wake from the
timeline, and the run judged from both (runner.workloads.tick.judge)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runner.execute import Execution, Launch, Settings
from runner.judge.diagnose import interpolate
from runner.measure.result import Sample
from runner.tasks import Variant
from runner.workload import Workload
from runner.workloads.tick import judge, summary
from runner.workloads.tick.params import period_us
from runner.workloads.tick.summary import MIN_CPU_S

SPAWN_RATE = 10_000  # tasks a second the default timeout allows for, allocating and first waking


def default_timeout(n: int, sleep: float, period: float) -> float:
    """Bound every run: the spawn and the first wakes (two periods, and N at SPAWN_RATE: trio,
    erlang and haskell at 1M were still before `ready` after 101 s), the hold after `ready`, the
    end; a stuck one still ends."""
    return 2 * sleep + 3 * period + 90 + n / SPAWN_RATE


def cpu_per_wake(timeline: Sequence[Sample], ready_s: float, window_s: float, wakes: int) -> float | None:
    """Seconds of the tree's CPU per wake: its user + system time over `window_s` from `ready`
    (the program's window is within a period of that), divided by the wakes achieved; None
    without CPU times or wakes, or with under MIN_CPU_S of CPU to divide."""
    points = [s for s in timeline if s.user_s is not None and s.sys_s is not None]
    if wakes < 1 or len(points) < 2 or points[-1].t < ready_s + window_s * 0.5:
        return None
    cpu = lambda s: (s.user_s or 0.0) + (s.sys_s or 0.0)  # noqa: E731
    spent = interpolate(points, ready_s + window_s, cpu) - interpolate(points, ready_s, cpu)
    if spent < MIN_CPU_S:  # under ten of the kernel's clock ticks: too little to divide
        return None
    return spent / wakes


def execute(workload: Workload, variant: Variant, n: int, sleep: float, settings: Settings) -> Execution:
    """The program with N ticking tasks, each of `state` bytes waking every `period` (the
    settings' params, else the workload's defaults), held for `sleep` after `ready N`."""
    params: dict[str, Any] = {**workload.parse_parameters({}), **(settings.params or {})}
    state, period = params["state"], params["period"]
    if isinstance(period, tuple | list):  # a campaign's single period; the default list's first
        period = period[0]
    lines: list[str] = []

    def on_line(line: bytes) -> None:  # its summary, read before any reader the spec has
        lines.append(line.decode("utf-8", "replace").rstrip("\n"))

    launch = Launch.of(variant, n, sleep, settings, state=state, period_us=period_us(period))
    timeout = launch.timeout(default_timeout(n, sleep, period))
    result = launch.run(timeout, on_line=on_line)
    try:
        told: summary.Summary | str = summary.parse(lines)
    except summary.SummaryError as e:
        told = str(e)
    asked = judge.Asked(n, sleep, state, period)
    judged = judge.judge(result, told, asked, variant.per_task, variant.failures, workload, launch.limits())
    report = None
    if isinstance(told, summary.Summary):
        report = told.to_json()
        window = told.periods * period
        report["window_s"] = window
        report["wakes_per_s"] = told.achieved / window if window > 0 else None
        per_wake = cpu_per_wake(result.timeline, result.ready_s or 0.0, window, told.achieved)
        report["cpu_per_wake_us"] = None if per_wake is None else round(per_wake * 1e6, 3)
        report["keeps_up"] = judged.code == "ok"
    return launch.execution(timeout, result, judged, client=report)
