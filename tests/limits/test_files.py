"""runner.limits.files: the RLIMIT_NOFILE each process of a connections run gets, never above what
memrun may set, and a real process that runs out at it."""

from __future__ import annotations

import errno
import resource
import subprocess
import sys

import pytest

from runner.limits import files, read_limits
from tests.support.here import HERE_CONN, PRIVILEGED


def test_n_plus_the_spare_rounded_for_both_ends_with_cap_sys_resource():
    got = files.run_nofile(1_000_000, PRIVILEGED)
    assert (got.server, got.client) == (1_001_472, 1_000_448)  # 978 and 977 steps of 1,024
    assert (got.ceiling, got.ceiling_name) == (1_048_576, "fs.nr_open")


def test_the_value_depends_on_n_alone_not_on_the_shell():
    small = files.run_nofile(1, HERE_CONN)
    assert (small.server, small.client) == (2048, 1024)
    assert files.run_nofile(1, {**HERE_CONN, "nofile_soft": 1024}) == small


def test_without_cap_sys_resource_the_hard_limit_is_the_ceiling():
    assert files.run_nofile(18_000, HERE_CONN).server == 19_456
    # the rounded value (20,480) is above the hard limit, N + the least spare (19,756) is not
    assert files.run_nofile(19_500, HERE_CONN).server == 20_000
    with pytest.raises(files.NofileError) as refused:
        files.run_nofile(19_800, HERE_CONN)
    message = str(refused.value)
    assert "19,800 connections need an RLIMIT_NOFILE of at least 20,056 for the server" in message
    assert "at most 20,000 here" in message and "CAP_SYS_RESOURCE" in message
    assert "no sysctl lifts it" in message


def test_fs_nr_open_is_the_ceiling_even_with_cap_sys_resource():
    with pytest.raises(
        files.NofileError, match=r"fs\.nr_open\): --raise-limits \(root\), or sysctl -w fs\.nr_open="
    ):
        files.run_nofile(1_048_400, PRIVILEGED)
    lower = {**PRIVILEGED, "nr_open": 10_000}  # a hard limit above fs.nr_open is no use either
    assert files.ceiling(lower) == (10_000, "fs.nr_open")
    assert files.ceiling({**HERE_CONN, "nr_open": 10_000}) == (10_000, "fs.nr_open")


def _child_limits(value: int) -> tuple[int, int]:
    """RLIMIT_NOFILE as a child process sees it after apply(value) between fork and exec."""
    code = "import resource; print(*resource.getrlimit(resource.RLIMIT_NOFILE))"
    out = subprocess.run(
        [sys.executable, "-c", code], preexec_fn=lambda: files.apply(value), capture_output=True, text=True
    )
    soft, hard = out.stdout.split()
    return int(soft), int(hard)


def test_the_values_for_this_machine_can_be_set_on_a_child():
    limits = read_limits()
    got = files.run_nofile(1000, limits)
    assert got.ceiling is None or max(got.server, got.client) <= got.ceiling
    assert _child_limits(got.server) == (got.server, got.server)
    assert _child_limits(got.client) == (got.client, got.client)
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[1] == limits["nofile_hard"], "memrun's own untouched"


def test_a_real_process_runs_out_at_the_limit_it_was_given():
    """EMFILE at the value apply() set: the limit is the run's, as the verdict says."""
    code = (
        "import socket, errno\nheld = []\n"
        "try:\n    while True: held.append(socket.socket())\n"
        "except OSError as e:\n    print(e.errno, len(held))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], preexec_fn=lambda: files.apply(64), capture_output=True, text=True
    )
    err, opened = map(int, out.stdout.split())
    assert err == errno.EMFILE
    assert 50 < opened < 64  # 64 descriptors, less stdio and the interpreter's own
