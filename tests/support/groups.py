"""The suite's two groups, and what keeps a test in the right one (docs/development.md, "The test
suite").

A test marked `serial` runs one at a time, before any other test that runs beside it (the parallel
group, at the lowest CPU priority, scripts/test), because what runs beside it at its own priority
could change its outcome: it asserts a time or a measured figure, holds the machine's
measurement lock, changes machine-wide state (sysctls and their journal, cgroups it makes or
counts, a VM) or runs the real runtimes. Every other test runs side by side with others
(pytest-xdist), and gets a machine of its own where memrun keeps machine-wide things: its own
measurement lock and its own limits journal (and a VM's free page reporting left as it is), so a
`memrun sweep` of the fake program in it neither waits for nor blocks another.

What can be seen from inside, a test outside the serial group may not do, and fails when it does:
measure a run in the test's own process (runner.measure, which every execute() and in-process
capacity probe goes through), hold the measurement lock in its own process, boot a VM, or raise
a machine limit (its journal is the test's own, and must stay empty). A timing assertion cannot be
seen that way: mark it serial by hand.

The parallel group runs beside the serial one (scripts/test), at the lowest CPU priority: it takes
the CPU the serial group's sleeping programs leave, and what a serial test measures is run first.
A serial test that a busy core moves even so (a rate, a latency, how fast threads start), or
that another group's memrun commands could preempt (each undoes what a SIGKILLed memrun left: run
cgroups anywhere, the limits journal the guest group shares), is also marked `quiet`: it runs at
the end of the serial group, and there waits until the guest group and the parallel group, run
beside (scripts/test), have ended; a qemu guest under TCG is most of a core for minutes.

A serial test that runs no task program of tasks/ (fakes and probes only) is also marked
`unbuilt`: it runs in the serial group's first part, while `memrun setup` builds the task
programs, with a build folder of its own; one that builds a folder of tasks/ there fails
(built_task_programs).
"""

from __future__ import annotations

import fcntl
import functools
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from runner import lock, paths
from runner.limits import journal, page_reporting
from runner.measure import cgroups
from runner.vm import boot

MARK = "serial"
QUIET = "quiet"
UNBUILT = "unbuilt"
# scripts/test sets this while `memrun setup` builds the task programs beside the serial group's
# `unbuilt` tests, whose MEMRUN_BUILD is then a folder of their own (empty at the start)
BUILDS_PENDING_ENV = "MEMRUN_TEST_BUILDS_PENDING"
LONGEST = "longest"
# scripts/test holds these files locked while the guest group and the parallel group run beside
# the serial group
GUESTS_RUNNING_ENV = "MEMRUN_TEST_GUESTS_RUNNING"
PARALLEL_RUNNING_ENV = "MEMRUN_TEST_PARALLEL_RUNNING"
RUNNING_ENVS = (GUESTS_RUNNING_ENV, PARALLEL_RUNNING_ENV)


def is_serial(node: pytest.Item) -> bool:
    return node.get_closest_marker(MARK) is not None


def is_late(node: pytest.Item) -> bool:
    """A guest test or a `quiet` one: neither can run in the serial group's `unbuilt` first part,
    which runs beside the guest group."""
    return node.get_closest_marker("guest") is not None or node.get_closest_marker(QUIET) is not None


def ordered(items: list[pytest.Item]) -> None:
    """A group's `longest` tests first (pytest-xdist hands out tests in this order, so a test that
    alone takes most of the parallel group's time starts at once, not behind dozens of others),
    its `quiet` tests after every other; the order otherwise kept (a stable sort)."""
    items.sort(
        key=lambda item: (
            (item.get_closest_marker(QUIET) is not None) - (item.get_closest_marker(LONGEST) is not None)
        )
    )


def after_the_others(node: pytest.Item) -> float | None:
    """For a `quiet` test: wait while the guest group or the parallel group runs beside (each one's
    lock file, held exclusively by scripts/test for as long as that group runs). Returns how long
    it waited (0.0: the locks were free), None when there was nothing to wait for (not quiet, or
    no group beside)."""
    paths = [path for env in RUNNING_ENVS if (path := os.environ.get(env))]
    if node.get_closest_marker(QUIET) is None or not paths:
        return None
    waited = 0.0
    for path in paths:
        with open(path, "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
                continue
            except BlockingIOError:
                pass
            t0 = time.monotonic()
            fcntl.flock(f, fcntl.LOCK_SH)
            waited += time.monotonic() - t0
    return waited


def built_task_programs() -> list[str]:
    """While the task programs are being built (BUILDS_PENDING_ENV): the folders of tasks/ that a
    test built into its own build folder (runner.paths.BUILD_DIR, empty when the `unbuilt` part
    began). An `unbuilt` test runs only fakes and probes; one that builds a task program would
    run a real runtime beside the builds, on a copy built again for it: the mark is wrong."""
    if not os.environ.get(BUILDS_PENDING_ENV) or not paths.BUILD_DIR.is_dir():
        return []
    folders = {p.name for p in paths.TASKS_DIR.iterdir() if (p / "task.toml").is_file()}
    return sorted(p.name for p in paths.BUILD_DIR.iterdir() if p.name in folders)


def _noting(seen: list[str], what: str, real: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(real)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if what not in seen:
            seen.append(what)
        return real(*args, **kwargs)

    return wrapper


def own_machine(request: pytest.FixtureRequest, own: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """For a test outside the serial group: its own lock and journal (for this process and every
    memrun it starts), and a failure naming what it did that only a serial test may do."""
    lock_file, state = own / "measure.lock", own / "state"
    monkeypatch.setenv("MEMRUN_LOCK", str(lock_file))
    monkeypatch.setattr(lock, "LOCK_PATH", lock_file)
    monkeypatch.setenv("MEMRUN_STATE", str(state))
    monkeypatch.setattr(journal, "STATE_DIR", state)
    monkeypatch.setenv(page_reporting.ENV, "leave")  # machine-wide: the serial group's to hold
    seen: list[str] = []
    for module, name, what in (
        (cgroups, "for_run", "measured a run in the test's own process"),
        (lock, "measuring", "held the measurement lock in the test's own process"),
        (boot, "run", "booted a VM"),
    ):
        monkeypatch.setattr(module, name, _noting(seen, what, getattr(module, name)))
    yield
    if state.exists():  # the journal's folder is made before any limit is raised, and kept
        seen.append(f"raised a machine limit (memrun's limits journal was written in {state})")
    if seen:
        pytest.fail(
            f"{request.node.nodeid} {', '.join(seen)}: only a test marked @pytest.mark.{MARK} may "
            "(it runs alone; see docs/development.md, The test suite)",
            pytrace=False,
        )
