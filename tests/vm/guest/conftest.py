"""The guest suite runs only inside the cgroup v2 guests (tests/vm/test_cgroup_v2.py boots them):
on the host it would change the host's cgroups, so it is not even collected there."""

import os

import pytest

collect_ignore_glob = [] if os.environ.get("MEMRUN_IN_VM") == "1" else ["test_*.py"]


@pytest.fixture(autouse=True)
def _no_run_cgroup_left():
    """Every guest test leaves no run cgroup with processes in it."""
    from runner.measure import cgroups

    yield
    left = [cg.path for cg, _, _ in cgroups.run_cgroups() if cg.path.exists() and cg.pids()]
    assert not left, f"run cgroups with processes left behind: {left}"
