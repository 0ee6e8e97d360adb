"""Memory cgroup backends behind one interface (base.RunCgroup: v1, v2 and none, each in its own
module), where their cgroups go (placement: the v2 factory) and how they are found, made and
cleaned up (discover)."""

from runner.measure.cgroups.base import CgroupUnavailable, RunCgroup
from runner.measure.cgroups.discover import (
    cap_problem,
    cgroup_at,
    create,
    detect,
    find,
    for_run,
    mounts,
    own_path,
    prepared,
    remove_stale,
    run_cgroups,
    stale,
)
from runner.measure.cgroups.none import NoCgroup
from runner.measure.cgroups.v1 import V1Cgroup
from runner.measure.cgroups.v2 import V2Cgroup

__all__ = [
    "CgroupUnavailable",
    "NoCgroup",
    "RunCgroup",
    "V1Cgroup",
    "V2Cgroup",
    "cap_problem",
    "cgroup_at",
    "create",
    "detect",
    "find",
    "for_run",
    "mounts",
    "own_path",
    "prepared",
    "remove_stale",
    "run_cgroups",
    "stale",
]
