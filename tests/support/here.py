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

# The connections workload's limits as the reference machine has them (Linux 6.18, a container whose
# root holds CAP_SYS_ADMIN but not CAP_SYS_RESOURCE, a hard RLIMIT_NOFILE of 20,000, conntrack loaded
# but tracking nothing), frozen for the same reason.
HERE_CONN: Limits = {
    **HERE,
    "nofile_soft": 20000,
    "nofile_hard": 20000,
    "cap_sys_resource": 0,
    "file_max_enforced": 0,
    "nr_open": 1_048_576,
    "file_max": 2_466_170,
    "files_open": 633,
    "somaxconn": 4096,
    "syn_backlog": 2048,
    "syncookies": 1,
    "port_low": 32768,
    "port_high": 60999,
    "reserved_ports": 0,
    "conntrack_max": 262_144,
    "conntrack_count": 0,
    "conntrack_tracks": 0,
}
# The same kernel with CAP_SYS_RESOURCE (a root shell outside such a container): fs.nr_open is the
# ceiling of RLIMIT_NOFILE.
PRIVILEGED: Limits = {**HERE_CONN, "cap_sys_resource": 1, "nofile_hard": 1_048_576}
