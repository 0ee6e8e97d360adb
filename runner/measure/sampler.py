"""The run's sampler: every interval, the process tree's summed RSS, threads, processes, page
tables and CPU time, each process's kernel high-water mark, and the cgroup's usage and breakdown.
What it keeps is the timeline and the highest of each, for the run's record."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from runner.measure import procfs
from runner.measure.cgroups import RunCgroup
from runner.measure.result import Sample


@dataclass
class Sampler:
    """Samples one run's tree and cgroup; the fields are what the record takes from them."""

    cg: RunCgroup
    on_sample: Callable[[Sample], None] | None = None
    timeline: list[Sample] = field(default_factory=list)
    hwm: dict[int, int] = field(default_factory=dict)  # pid -> its VmHWM, the highest seen
    sampled_peak: int | None = None  # highest summed RSS (None: never sampled a live process)
    pte_peak: int | None = None
    threads_max: int = 0
    procs_max: int = 0
    cg_best: int = -1  # highest cgroup usage sampled
    breakdown: dict[str, int] = field(default_factory=dict)  # read last at that usage
    held_best: int = -1
    held: dict[str, int] = field(default_factory=dict)  # highest kernel part while held

    def sample(self, t0: float, root: int, holding: bool) -> None:
        """One point at monotonic time - t0. holding: a companion holds what it opened (the
        connections' client, between `ready` and its close): the breakdown of the highest kernel
        part in that window is kept apart, since the highest total may come as the companion undoes
        its work (a server whose user memory grows while its sockets are freed at the close), when
        the kernel part is read half-emptied.

        The point's time is taken as its reads begin, not as they end: the RSS it sums is then
        never older than its time. Stamped at the end, a point whose processes were read before
        `ready` could fall after it when the cgroup's reads that follow took long (a busy machine,
        a sampler preempted): cpp-asio, read just before its 2,000 tasks started, counted as RSS
        at `ready` 0.83 of its hold's in a full test run, and 0.86 in one of 12 runs at 20,000
        with the cgroup's usage read 30 ms late on purpose (1.00 in 12 of 12 stamped at the start)."""
        t = round(time.monotonic() - t0, 4)
        rss = threads = pte = procs = 0
        user = system = 0.0
        for pid in self.cg.members(root):
            st = procfs.read_status(pid)
            if st is None:
                continue
            procs += 1
            rss += st.rss
            threads += st.threads
            pte += st.pte
            self.hwm[pid] = max(self.hwm.get(pid, 0), st.hwm)
            cpu = procfs.read_cpu(pid)
            if cpu is not None:
                user, system = user + cpu[0], system + cpu[1]
        usage = self.cg.usage()
        if usage is not None and (usage >= self.cg_best or holding):
            self.offer(usage, self.cg.breakdown(), holding)
        if procs:
            self.sampled_peak = max(self.sampled_peak or 0, rss)
            self.pte_peak = max(self.pte_peak or 0, pte)
        self.threads_max = max(self.threads_max, threads)
        self.procs_max = max(self.procs_max, procs)
        cpu_s = (round(user, 2), round(system, 2)) if procs else (None, None)
        point = Sample(t, rss, threads, procs, usage, *cpu_s)
        self.timeline.append(point)
        if self.on_sample:
            self.on_sample(point)

    def offer(self, usage: int, breakdown: dict[str, int], holding: bool) -> None:
        """A read of the cgroup's usage and then its memory.stat, from a sample or from the hold's
        snapshot: the breakdown kept is the one read last at the highest usage, not the first. The
        kernel's memory.stat can lag its usage counter right after a fast growth (a CI run read
        224 MiB of anon beside a usage of 261 MiB at its highest sample, and 261 MiB of anon 25 ms
        later at the hold), so the later read of the same high level is the truer one. holding: as
        for sample(), the read also competes for the highest kernel part."""
        if usage >= self.cg_best:
            self.cg_best, self.breakdown = usage, breakdown
        kernel = breakdown.get("kernel", 0) + breakdown.get("sock", 0)
        if holding and kernel > self.held_best:
            self.held_best, self.held = kernel, breakdown
