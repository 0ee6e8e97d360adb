"""Reading a run's end: what the cgroup kept (its peak, kernel peak, OOM kills), how the program
ended (exit code or signal, or why it never started), and which RSS peak is the headline."""

from __future__ import annotations

import os
from dataclasses import dataclass

from runner.measure.cgroups import RunCgroup
from runner.measure.launcher import LaunchReport
from runner.measure.result import signal_name
from runner.measure.sampler import Sampler


@dataclass(frozen=True)
class CgroupEnd:
    """The cgroup's figures once the run is over; None with a reason where it kept none."""

    peak: int | None
    kernel_peak: int | None
    oom_kills: int | None
    source: str | None  # "kernel", or "sampled memory.current every X s (why)"
    reason: str | None


def read_cgroup(cg: RunCgroup, sampler: Sampler, interval: float, reason: str | None) -> CgroupEnd:
    """The cgroup's peak (the kernel's high-water mark, or the highest usage sampled where the
    kernel keeps none: v2 before 5.19), then the cgroup is removed. reason: why its figures may
    be missing already (no cgroup, a cap that could not be set)."""
    oom = cg.oom_kills()
    peak, why = cg.peak()
    source: str | None = "kernel"
    if why and sampler.cg_best >= 0:
        peak, source = sampler.cg_best, f"sampled memory.current every {interval:g} s ({why})"
    elif why:
        reason, source = why, None
    kernel = cg.kernel_peak()
    cg.remove()
    return CgroupEnd(peak, kernel, oom, source, reason)


@dataclass(frozen=True)
class Outcome:
    """How the program ended: exit code or signal, or the error that kept it from starting."""

    exit_code: int | None
    signal: str | None
    error: str | None


def outcome(report: LaunchReport, launcher_exit: int | None, stderr_tail: list[str]) -> Outcome:
    """From the launcher's report of the program's wait status."""
    exit_code = sig = None
    if report.status is not None:
        if os.WIFEXITED(report.status):
            exit_code = os.WEXITSTATUS(report.status)
        elif os.WIFSIGNALED(report.status):
            sig = signal_name(os.WTERMSIG(report.status))
    error = report.exec_error
    if report.pid is None and error is None:
        error = f"launcher failed (exit {launcher_exit}): " + " | ".join(stderr_tail)
    if error:
        exit_code, sig = None, None
    return Outcome(exit_code, sig, error)


@dataclass(frozen=True)
class RssPeak:
    """The headline peak RSS and where it came from, with the kernel's marks it was chosen from."""

    peak: int
    source: str  # "kernel-hwm" or "sampled-tree-sum"
    hwm_max: int | None
    hwm_sum: int | None
    ru_maxrss: int | None


def rss_peak(report: LaunchReport, sampler: Sampler, error: str | None) -> RssPeak:
    """The larger of the kernel's exact per-process high-water marks (VmHWM while a process
    lives, ru_maxrss from wait4 when it ends) and the sampled peak of the tree's summed RSS."""
    hwm = sampler.hwm
    ru_maxrss = report.maxrss_kib * 1024 if report.maxrss_kib is not None else None
    if report.pid is not None and ru_maxrss is not None and not error:
        hwm[report.pid] = max(hwm.get(report.pid, 0), ru_maxrss)
    marks = list(hwm.values())
    if report.done_maxrss_kib is not None and not error:
        marks.append(report.done_maxrss_kib * 1024)
    hwm_max = max(marks) if marks else None
    sampled = sampler.sampled_peak
    if hwm_max is not None and hwm_max >= (sampled or 0):
        peak, source = hwm_max, "kernel-hwm"
    else:
        peak, source = sampled or 0, "sampled-tree-sum"
    return RssPeak(peak, source, hwm_max, sum(hwm.values()) if hwm else None, ru_maxrss)
