"""What one measured run reports.

Every memory figure is in bytes and says where it came from; a figure that could not be measured
is None with a reason beside it, never a silent 0.
"""

from __future__ import annotations

import signal
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from runner.units import MIB as MIB  # re-exported: measure callers use it


@dataclass
class Sample:
    """One point of the memory timeline: seconds since the program was forked."""

    t: float
    rss: int  # summed VmRSS of the process tree
    threads: int  # summed thread count of the tree
    procs: int  # processes in the tree
    cgroup: int | None  # cgroup usage at that moment
    # CPU seconds the tree has used so far (/proc/PID/stat, reaped children included), so that a
    # stalled run shows where its time went; None in timelines stored before they were sampled.
    user_s: float | None = None
    sys_s: float | None = None

    def row(self) -> list[float | int | None]:
        """The point as stored in timelines.jsonl: [t, rss, threads, procs, cgroup, user_s, sys_s]."""
        return [self.t, self.rss, self.threads, self.procs, self.cgroup, self.user_s, self.sys_s]

    @classmethod
    def from_row(cls, row: list | tuple) -> Sample:
        """A stored point back: 5 fields (before CPU time was sampled) or 7."""
        return cls(*row[:7])


@dataclass
class RunResult:
    argv: list[str]
    started_at: str  # ISO-8601 UTC
    # --- outcome ---
    exit_code: int | None  # None when killed by a signal
    signal: str | None  # e.g. "SIGABRT"
    timed_out: bool
    interrupted: bool
    error: str | None  # the program could not be started at all
    # --- time ---
    wall_s: float
    user_s: float | None
    sys_s: float | None
    ready_n: int | None  # N from the first `ready N` line
    ready_s: float | None  # seconds from fork to that line
    stdout_other: int  # stdout lines that were not the readiness line
    # --- memory: process tree RSS ---
    peak_rss: int  # headline, see peak_rss_source
    peak_rss_source: str  # "kernel-hwm" or "sampled-tree-sum"
    hwm_max: int | None  # largest single-process kernel high-water mark (VmHWM / ru_maxrss)
    hwm_sum: int | None  # sum of per-process VmHWM: an upper bound for the tree
    sampled_peak_rss: int | None  # highest summed VmRSS over samples (None: never sampled)
    ru_maxrss: int | None  # ru_maxrss of the program from the launcher's wait4
    procs_max: int
    threads_max: int
    pte_peak: int | None  # summed VmPTE (page tables, kernel memory RSS omits)
    # --- memory: cgroup ---
    cgroup_version: str | None
    cgroup_peak: int | None
    cgroup_kernel_peak: int | None
    # "kernel" (memory.peak / memory.max_usage_in_bytes), or "sampled memory.current every X s"
    # where the kernel keeps no high-water mark (v2 before Linux 5.19): a lower bound, since a
    # spike between two samples is missed.
    cgroup_peak_source: str | None = None
    cgroup_oom_kills: int | None = None  # processes killed by the OOM killer inside the cgroup
    cgroup_breakdown: dict[str, int] = field(default_factory=dict)  # at the highest sample
    # With a companion (connections): at the sample of the highest kernel part between `ready` and
    # the companion's undoing (the client's close), when every connection was held. Empty for
    # runs without one, and in rows stored before memrun read it.
    cgroup_breakdown_held: dict[str, int] = field(default_factory=dict)
    cgroup_reason: str | None = None  # why cgroup figures are None
    memory_cap: int | None = None  # the run cgroup's memory limit in bytes (None: uncapped)
    # --- diagnosis ---
    stderr_tail: list[str] = field(default_factory=list)
    stdout_tail: list[str] = field(default_factory=list)  # stdout lines other than `ready N`
    interval_s: float = 0.05
    samples: int = 0
    timeline: list[Sample] = field(default_factory=list)
    # Set when the run was stopped at this many seconds because `ready N` had not come by then
    # (measure's ready_by): it could no longer be valid. timed_out is True as well.
    ready_deadline_s: float | None = None
    # Seconds the timeout was pushed back because the tree's threads were still ending.
    timeout_extended_s: float | None = None
    # Why memrun stopped the run before it ended by itself, other than a timeout (a companion's
    # reason: the connections client gave up). The program was killed; None when it was not.
    stopped_reason: str | None = None
    # What stopped it, when a watch did (measure's stop_when: "exit-stalled", a capacity probe whose
    # threads stopped ending after the sleep); None for a companion's stop or none at all.
    stopped_by: str | None = None
    # Whether the run's cgroup charged the sockets the program accepted (cgroup v1 does only when
    # asked: RunCgroup.account_sockets); None when not asked.
    socket_accounting: bool | None = None
    # What the memory was made of at the hold, once every task waited (runner.measure.hold): sums
    # per kind of mapping, page tables, threads, the cgroup's usage and memory.stat. None when no
    # snapshot was taken (no `ready N`; rows stored before memrun took it).
    hold_split: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.interrupted

    def outcome(self) -> str:
        """One phrase: how the program ended."""
        if self.error:
            return f"not started: {self.error}"
        if self.interrupted:
            return "interrupted"
        if self.timed_out:
            return "timed out (killed)"
        if self.signal:
            return f"killed by {self.signal}"
        return f"exit {self.exit_code}"

    def to_dict(self, timeline: bool = True) -> dict[str, Any]:
        d = asdict(self)
        if not timeline:
            d.pop("timeline")
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunResult:
        """The inverse of to_dict, tolerant of records written before a field existed (None, or
        the field's default) so that old results directories keep loading."""
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            if f.name in data:
                kwargs[f.name] = data[f.name]
            elif f.default is not MISSING or f.default_factory is not MISSING:
                continue
            else:
                kwargs[f.name] = [] if f.name == "argv" else None
        kwargs["timeline"] = [s if isinstance(s, Sample) else Sample(**s) for s in data.get("timeline", [])]
        return cls(**kwargs)

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
