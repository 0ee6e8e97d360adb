"""runner.measure.cgroups: the memory cap, and finding what a dead memrun left behind."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from runner.measure import cgroups
from tests.support.process import require

pytestmark = pytest.mark.serial  # run cgroups made by hand, one of them stale: another memrun would remove it


def _usable() -> None:
    require(os.geteuid() == 0 and cgroups.detect()[0] is not None, "root and a memory cgroup controller")


def test_set_limit_is_read_back_rounded_to_pages():
    _usable()
    cg = cgroups.create()
    try:
        assert cg.set_limit(100 * 1024 * 1024 + 1) in (100 * 1024 * 1024, 100 * 1024 * 1024 + 4096)
    finally:
        cg.remove()


# Quiet: any memrun command of another group removes a stale run cgroup first (2026-11-28: one did,
# between this test's making it and its own remove_stale()); at the serial group's end none runs
@pytest.mark.quiet
def test_only_a_dead_owners_run_cgroup_is_stale_and_removal_kills_what_is_inside():
    _usable()
    _, parent, _ = cgroups.detect()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    now = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
    orphaned = cgroups.cgroup_at(cgroups.detect()[0], parent / f"memrun-{dead.pid}-{now}")
    live = cgroups.cgroup_at(orphaned.version, parent / f"memrun-{os.getpid()}-{now}")
    orphaned.path.mkdir()
    live.path.mkdir()
    sleeper = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"open({orphaned.launcher_arg!r}, 'w').write('0'); import time; time.sleep(60)",
        ]
    )
    try:
        deadline = time.monotonic() + 10
        while sleeper.pid not in orphaned.pids() and time.monotonic() < deadline:
            time.sleep(0.05)
        stale = [cg.path for cg in cgroups.stale()]
        assert orphaned.path in stale and live.path not in stale
        assert orphaned.path in cgroups.remove_stale()
        assert sleeper.wait(timeout=10) == -9 and not orphaned.path.exists() and live.path.exists()
    finally:
        sleeper.kill()
        orphaned.kill_all()
        orphaned.remove()
        live.remove()
