"""runner.measure.cgroups' backends against a fake cgroup tree in a temporary folder (no root):
each reads its version's files, reduces memory.stat to memrun's names, caps and reports OOM kills
the way that version does; the none backend answers every question with nothing and a reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from runner.measure.cgroups import NoCgroup, V1Cgroup, V2Cgroup, cgroup_at


def _tree(path: Path, files: dict[str, str]) -> Path:
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text)
    return path


V1_FILES = {
    "cgroup.procs": "101\n102\n",
    "memory.usage_in_bytes": "5000000\n",
    "memory.max_usage_in_bytes": "7000000\n",
    "memory.stat": "cache 10\nrss 20\ntotal_cache 4096\ntotal_rss 2000000\ntotal_shmem 0\n",
    "memory.kmem.usage_in_bytes": "900000\n",
    "memory.kmem.max_usage_in_bytes": "950000\n",
    "memory.kmem.tcp.usage_in_bytes": "36\n",
    "memory.kmem.tcp.limit_in_bytes": "9223372036854771712\n",
    "memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
    "memory.limit_in_bytes": "9223372036854771712\n",
}
V2_FILES = {
    "cgroup.procs": "201\n",
    "memory.current": "6000000\n",
    "memory.peak": "8000000\n",
    "memory.stat": "anon 3000000\nfile 8192\nkernel 700000\nkernel_stack 16384\npagetables 4096\n"
    "sock 0\nslab 600000\nshmem 0\nactive_anon 1\n",
    "memory.events": "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n",
    "memory.max": "max\n",
    "memory.swap.max": "max\n",
}


def test_v1_reads_its_files(tmp_path):
    cg = V1Cgroup(_tree(tmp_path / "memrun-1-2", V1_FILES))
    assert (cg.version, cg.reason) == ("v1", None)
    assert cg.pids() == [101, 102] and cg.members(1) == [101, 102]
    assert cg.usage() == 5_000_000 and cg.peak() == (7_000_000, None)
    assert cg.breakdown() == {"anon": 2_000_000, "file": 4096, "shmem": 0, "kernel": 900_000, "sock": 36}
    assert cg.kernel_peak() == 950_000 and cg.oom_kills() == 2
    assert cg.launcher_arg == str(tmp_path / "memrun-1-2" / "cgroup.procs")


def test_v1_caps_and_turns_socket_accounting_on(tmp_path):
    cg = V1Cgroup(_tree(tmp_path / "cg", V1_FILES))
    assert cg.set_limit(64 << 20) == 64 << 20
    assert (cg.path / "memory.limit_in_bytes").read_text() == str(64 << 20)
    assert cg.account_sockets() is True
    assert (cg.path / "memory.kmem.tcp.limit_in_bytes").read_text() == "-1"


def test_v1_without_its_files_says_so(tmp_path):
    cg = V1Cgroup(_tree(tmp_path / "cg", {}))
    assert cg.usage() is None and cg.oom_kills() is None and cg.breakdown() == {}
    peak, why = cg.peak()
    assert peak is None and "memory.max_usage_in_bytes" in (why or "")


def test_v2_reads_its_files(tmp_path):
    cg = V2Cgroup(_tree(tmp_path / "cg", V2_FILES))
    assert (cg.version, cg.reason) == ("v2", None)
    assert cg.pids() == [201] and cg.usage() == 6_000_000 and cg.peak() == (8_000_000, None)
    assert cg.breakdown() == {
        "anon": 3_000_000,
        "file": 8192,
        "kernel": 700_000,
        "kernel_stack": 16384,
        "pagetables": 4096,
        "sock": 0,
        "slab": 600_000,
        "shmem": 0,
    }
    assert cg.kernel_peak() is None and cg.oom_kills() == 1
    assert cg.account_sockets() is True  # v2 always charges sockets


def test_v2_before_5_19_has_no_peak_and_says_why(tmp_path):
    cg = V2Cgroup(_tree(tmp_path / "cg", {k: v for k, v in V2_FILES.items() if k != "memory.peak"}))
    peak, why = cg.peak()
    assert peak is None and "Linux 5.19" in (why or "")


def test_v2_caps_with_swap_excluded(tmp_path):
    cg = V2Cgroup(_tree(tmp_path / "cg", V2_FILES))
    assert cg.set_limit(32 << 20) == 32 << 20
    assert (cg.path / "memory.swap.max").read_text() == "0"


def test_none_answers_nothing_and_names_why():
    cg = NoCgroup("not root and no delegated cgroup")
    assert (cg.version, cg.reason, cg.launcher_arg) == (None, "not root and no delegated cgroup", "-")
    assert cg.usage() is None and cg.breakdown() == {} and cg.oom_kills() is None
    assert cg.peak() == (None, "not root and no delegated cgroup")
    assert cg.account_sockets() is None and cg.kernel_peak() is None
    assert cg.members(os.getpid())[0] == os.getpid()  # the tree, from its root
    with pytest.raises(OSError, match="no memory cgroup to cap"):
        cg.set_limit(1 << 20)
    cg.kill_all()
    cg.remove()  # nothing was made: both do nothing


def test_the_version_names_its_backend(tmp_path):
    assert type(cgroup_at("v1", tmp_path)) is V1Cgroup and type(cgroup_at("v2", tmp_path)) is V2Cgroup
