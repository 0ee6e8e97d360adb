"""The development machine's limits, frozen, and the per-task needs of the two thread variants,
shared by the tests of prediction, verdicts and raising."""

from __future__ import annotations

from runner.limits import Limits

RUST = {"threads": 1, "maps": 4, "stack_kib": 2048}
JAVA = {"threads": 1, "maps": 2, "stack_kib": 1024}

# The development machine's defaults, frozen so the numbers below do not move with the host.
HERE: Limits = {
    "pid_max": 32768,
    "threads_max": 192730,
    "max_map_count": 65530,
    "overcommit_memory": 0,
    "nproc_soft": 96365,
    "nproc_hard": 96365,
    "nproc_enforced": 0,
    "stack_soft": 8 * 1024 * 1024,
    "as_soft": "unlimited",
    "pids_max": "max",
    "pids_cgroup": "/sys/fs/cgroup/pids",
    "mem_cgroup_max": "max",
    "mem_total": 25_276_510_208,
    "mem_available": 24_843_108_352,
    "commit_limit": 12_638_253_056,
    "committed_as": 62_193_664,
    "threads_now": 82,
}
