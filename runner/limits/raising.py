"""Raise kernel limits for the length of a sweep, and always put them back.

Only what the largest N calls for is raised (limits.predict), each value is printed as it changes,
and every change is undone in reverse order on normal exit, exceptions, Ctrl-C and SIGTERM.

Under the sleep workload that is what OS threads need (kernel.pid_max, kernel.threads-max,
vm.max_map_count, RLIMIT_NPROC); under the connections workload also what N connections need
(runner.limits.connections): fs.nr_open, fs.file-max where it is enforced, net.core.somaxconn,
net.ipv4.tcp_max_syn_backlog where SYN cookies are off, net.netfilter.nf_conntrack_max where
loopback is tracked. RLIMIT_NOFILE is not raised here: memrun sets it on each run's processes
(runner.limits.files), which cannot go past fs.nr_open, so that is what is raised.
"""

from __future__ import annotations

import contextlib
import os
import resource
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from runner.limits import journal
from runner.limits.host import (
    LABELS,
    PROC_SYS,
    SYSCTLS,
    THREAD_FLOOR_BYTES,
    UNLIMITED,
    Limits,
    int_value,
    read_limits,
)
from runner.limits.predict import predict
from runner.signals import Terminated as Terminated  # what raised_limits() turns SIGTERM into
from runner.signals import sigterm_raises
from runner.tasks.manifest import Variant
from runner.workload import Workload, get


class NotRootError(PermissionError):
    """Raising kernel limits needs root; the message lists the commands to run instead."""


@dataclass(frozen=True)
class Change:
    """One limit to set, and how."""

    name: str
    old: int
    new: int
    write: Callable[[int], None]
    sysctl: str | None = None  # path under /proc/sys: journaled, so a crash cannot leave it raised


def _sysctl_writer(key: str) -> Callable[[int], None]:
    def write(value: int) -> None:
        (PROC_SYS / SYSCTLS[key]).write_text(f"{value}\n")

    return write


def _nproc_writer(hard: int | str | None) -> Callable[[int], None]:
    """Sets the soft limit, and the hard one where it is lower; children inherit both."""

    def write(value: int) -> None:
        new_hard = resource.RLIM_INFINITY if hard == UNLIMITED else max(value, int(hard or value))
        resource.setrlimit(resource.RLIMIT_NPROC, (value, new_hard))

    return write


def plan(
    n: int, per_task_list: Iterable[dict], limits: Limits, workload: Workload | None = None
) -> list[Change]:
    """What to raise so the most demanding variant fits N under `workload`: only limits it would hit,
    to what it needs."""
    per_task_list = list(per_task_list) or [{}]  # connections need what they need, variants or not
    targets: dict[str, int] = {}
    for per_task in per_task_list:
        for hit in predict(n, per_task, limits, workload):
            if hit.target is not None:
                targets[hit.key] = max(targets.get(hit.key, 0), hit.target)
    changes = []
    for key, target in targets.items():
        old = int_value(limits, key)
        if old is None or target <= old:
            continue
        if key in SYSCTLS:
            changes.append(Change(LABELS[key], old, target, _sysctl_writer(key), SYSCTLS[key]))
        elif key == "nproc_soft":
            changes.append(Change("RLIMIT_NPROC", old, target, _nproc_writer(limits.get("nproc_hard"))))
    return changes


@contextlib.contextmanager
def applied(changes: list[Change], log: Callable[[str], None]) -> Iterator[None]:
    """Apply changes, then undo every one that was applied, however the body ends.

    Undo runs in reverse order and keeps going past a failure, so one stuck value does not leave
    the others raised. Sysctls are written to the journal first, so that not even a SIGKILL, which
    no finally survives, leaves them raised: the next memrun command puts them back.
    """
    done: list[Change] = []
    entries = [journal.Entry(c.name, c.sysctl, c.old, c.new) for c in changes if c.sysctl]
    with sigterm_raises():
        journal.record(entries)
        failed = False
        try:
            for change in changes:
                try:
                    change.write(change.new)
                except (OSError, ValueError) as e:
                    raise OSError(f"cannot set {change.name} to {change.new}: {e}") from e
                done.append(change)
                log(f"{change.name} {change.old} -> {change.new}")
            yield
        finally:
            for change in reversed(done):
                try:
                    change.write(change.old)
                    log(f"{change.name} {change.new} -> {change.old} (restored)")
                except (OSError, ValueError) as e:
                    failed = True
                    log(f"could not restore {change.name} to {change.old}: {e}")
            if entries and not failed:
                journal.clear(entries)


def read_for(workload: Workload | None) -> Limits:
    """The limits as a plan for `workload` needs them: the connections workload's also say whether
    conntrack tracks loopback here (a probe that opens sockets, so only for a workload whose units
    hold descriptors)."""
    limits = read_limits()
    return limits if workload is None else workload.probe_limits(limits)


@contextlib.contextmanager
def raised_limits(
    n: int, per_task_list: list[dict], log: Callable[[str], None], workload: Workload | None = None
) -> Iterator[list[str]]:
    """Raise what N tasks of these variants need under `workload` for the duration of the block,
    then put it back.

    Sysctls are written to /proc/sys directly (no shell, no sysctl binary). RLIMIT_NPROC is set on
    this process, so every run started inside the block inherits it. Puts values back on normal
    exit, exceptions, Ctrl-C and SIGTERM. Yields the names of the limits that were raised.
    """
    changes = plan(n, per_task_list, read_for(workload), workload)
    if changes and os.geteuid() != 0:
        commands = "; ".join(
            f"ulimit -u {c.new}" if c.name == "RLIMIT_NPROC" else f"sysctl -w {c.name}={c.new}"
            for c in changes
        )
        raise NotRootError(f"raising limits for N={n} needs root; as root, run: {commands}")
    with applied(changes, log):
        yield [c.name for c in changes]


@dataclass(frozen=True)
class BudgetNeed:
    """What a capacity search within a memory budget may reach, for raised_limits()."""

    n: int
    per_task: list[dict]
    workload: Workload


def for_budget(budget: int, variants: Sequence[Variant]) -> BudgetNeed | None:
    """The most tasks any of these variants can fit in `budget`, bounded by what each task costs
    at the least (an OS thread's kernel memory; a connection's buffer and socket), so the limits
    raised for a capacity search cover every probe it can make. None when nothing needs raising
    (async tasks under the sleep workload)."""
    workload = variants[0].workload if variants else get(None)  # the one the variants run (Variant.under)
    threads = [v.per_task for v in variants if v.per_task.get("threads")]
    floor = workload.budget_floor()  # every unit costs at least this (a connection's socket)
    if floor is not None:
        return BudgetNeed(budget // floor, [v.per_task for v in variants], workload)
    if threads:
        return BudgetNeed(budget // THREAD_FLOOR_BYTES, threads, workload)
    return None
