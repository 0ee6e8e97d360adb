"""runner.limits.raising: raise what N needs, and always put it back."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from runner import workload as workloads
from runner.limits import host, raising
from tests.support.here import HERE, JAVA, RUST
from tests.support.process import require

CONNECTIONS = workloads.get("connections")


def _read_map_count() -> int:
    return int(Path("/proc/sys/vm/max_map_count").read_text())


def _small_raise() -> tuple[int, list[dict]]:
    """An N whose only need is a few thousand more mappings than now: harmless for the machine."""
    current = _read_map_count()
    return current - host.BASE_MAPS + 1, [{"maps": 1}]


def _can_write_sysctl() -> bool:
    return os.geteuid() == 0 and os.access("/proc/sys/vm/max_map_count", os.W_OK)


@pytest.mark.serial
@pytest.mark.unbuilt
def test_raised_limits_raises_a_little_and_restores():
    require(_can_write_sysctl(), "root with a writable /proc/sys")
    before = _read_map_count()
    n, needs = _small_raise()
    log: list[str] = []
    with raising.raised_limits(n, needs, log.append) as raised:
        inside = _read_map_count()
    assert raised == ["vm.max_map_count"]
    assert before < inside <= before + host.HEADROOM + host.ROUND_TO
    assert _read_map_count() == before
    assert log == [
        f"vm.max_map_count {before} -> {inside}",
        f"vm.max_map_count {inside} -> {before} (restored)",
    ]


@pytest.mark.serial
@pytest.mark.unbuilt
def test_raised_limits_restores_when_the_body_raises():
    require(_can_write_sysctl(), "root with a writable /proc/sys")
    before = _read_map_count()
    n, needs = _small_raise()
    with pytest.raises(RuntimeError, match="body failed"), raising.raised_limits(n, needs, lambda s: None):
        assert _read_map_count() > before
        raise RuntimeError("body failed")
    assert _read_map_count() == before


@pytest.mark.serial
@pytest.mark.unbuilt
def test_raised_limits_restores_on_sigterm():
    require(_can_write_sysctl(), "root with a writable /proc/sys")
    require(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, "default SIGTERM disposition")
    before = _read_map_count()
    n, needs = _small_raise()
    with pytest.raises(raising.Terminated), raising.raised_limits(n, needs, lambda s: None):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises here, at once
    assert _read_map_count() == before
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_raised_limits_leaves_a_callers_sigterm_handler_in_charge():
    def callers(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, callers)
    try:
        with raising.raised_limits(10, [RUST], print):
            assert signal.getsignal(signal.SIGTERM) is callers
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_limit_that_cannot_be_set_is_named_and_the_rest_put_back():
    values = {"a": 1}

    def write_a(value: int) -> None:
        values["a"] = value

    def refuse(value: int) -> None:
        raise PermissionError("read-only file system")

    changes = [raising.Change("a", 1, 10, write_a), raising.Change("kernel.pid_max", 32768, 102400, refuse)]
    refused = r"cannot set kernel\.pid_max to 102400"
    with pytest.raises(OSError, match=refused), raising.applied(changes, print):
        pass
    assert values == {"a": 1}


def test_raised_limits_needs_root_only_when_something_must_change(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    n, needs = _small_raise()
    with pytest.raises(raising.NotRootError, match="needs root"), raising.raised_limits(n, needs, print):
        pass
    with raising.raised_limits(10, [RUST], print) as raised:
        assert raised == []


def test_plan_takes_the_largest_need_of_all_variants():
    changes = {c.name: c.new for c in raising.plan(100_000, [RUST, JAVA, {}], HERE)}
    assert changes == {"kernel.pid_max": 102400, "vm.max_map_count": 401408}


def test_applied_restores_everything_in_reverse_even_past_a_failure():
    values = {"a": 1, "b": 2}
    order: list[str] = []

    def writer(name: str, fail_on: int | None = None):
        def write(value: int) -> None:
            if value == fail_on:
                raise OSError("read-only")
            order.append(f"{name}={value}")
            values[name] = value

        return write

    changes = [raising.Change("a", 1, 10, writer("a")), raising.Change("b", 2, 20, writer("b", fail_on=2))]
    log: list[str] = []
    with pytest.raises(KeyboardInterrupt), raising.applied(changes, log.append):
        raise KeyboardInterrupt
    assert order == ["a=10", "b=20", "a=1"]
    assert values == {"a": 1, "b": 20}
    assert "could not restore b to 2: read-only" in log


# ------------------------------------------------------------------ the connections workload

SOMAXCONN = Path("/proc/sys/net/core/somaxconn")
NR_OPEN = Path("/proc/sys/fs/nr_open")


def test_plan_for_connections_raises_only_the_sysctls_n_connections_need():
    from tests.support.here import HERE_CONN, PRIVILEGED

    plan = {c.name: (c.new, c.sysctl) for c in raising.plan(1_000_000, [{}], HERE_CONN, CONNECTIONS)}
    assert plan == {"net.core.somaxconn": (65_535, "net/core/somaxconn")}  # RLIMIT_NOFILE is no sysctl
    assert raising.plan(1_000_000, [{}], HERE_CONN) == []  # the sleep workload needs none of them
    tracked = {
        **PRIVILEGED,
        "conntrack_tracks": 1,
        "syncookies": 0,
        "file_max_enforced": 1,
        "file_max": 10**6,
    }
    plan = {c.name: c.new for c in raising.plan(1_100_000, [{}, JAVA], tracked, CONNECTIONS)}
    assert plan == {
        "fs.nr_open": 1_101_824,
        "fs.file-max": 2_203_648,
        "net.core.somaxconn": 65_535,
        "net.ipv4.tcp_max_syn_backlog": 88_064,  # 87,380 rounded up to 1,024
        "net.netfilter.nf_conntrack_max": 1_101_824,
        "kernel.pid_max": 1_101_824,
        "kernel.threads-max": 1_101_824,
        "vm.max_map_count": 2_203_648,
    }


def test_for_budget_bounds_a_capacity_search_by_the_least_a_task_costs():
    from runner import tasks
    from tests.support.cli import FIXTURE_TASKS

    fake = tasks.load_folder(FIXTURE_TASKS / "fake").variants[0]
    assert raising.for_budget(256 << 20, [fake]) is None  # no thread, no connection: nothing to raise
    threads = replace(fake, per_task=RUST)
    need = raising.for_budget(256 << 20, [threads, fake])
    assert need is not None and (need.n, need.per_task, need.workload.name) == (7281, [RUST], "sleep")
    conn = replace(fake, workload=CONNECTIONS)
    need = raising.for_budget(256 << 20, [conn])
    assert need is not None and (need.n, need.workload) == (131_072, CONNECTIONS)  # 2 KiB each


@contextlib.contextmanager
def _machine_lock():
    """Real sysctls are raised only while no measurement runs (they would disturb it), and never
    beside a sweep that holds the journal."""
    from runner import lock
    from runner.limits import journal

    with lock.measuring(lambda line: None, wait=True):
        require(not journal.journal_path().exists(), "no journal of a real sweep in the way")
        yield


def _can_write(path: Path) -> bool:
    return os.geteuid() == 0 and os.access(path, os.W_OK)


@pytest.mark.serial
@pytest.mark.unbuilt
def test_raised_limits_for_connections_raises_somaxconn_and_restores_it():
    require(_can_write(SOMAXCONN), "root with a writable net.core.somaxconn")
    with _machine_lock():
        before = int(SOMAXCONN.read_text())
        require(before < 65_000, "net.core.somaxconn below what a connections sweep asks")
        n = before + 1  # the accept queue of N connections: N
        log: list[str] = []
        with raising.raised_limits(n, [{}], log.append, workload=CONNECTIONS) as raised:
            inside = int(SOMAXCONN.read_text())
        assert raised == ["net.core.somaxconn"]
        assert inside == min(-(-n // 1024) * 1024, 65_535) > before
        assert int(SOMAXCONN.read_text()) == before
        assert log == [
            f"net.core.somaxconn {before} -> {inside}",
            f"net.core.somaxconn {inside} -> {before} (restored)",
        ]


RAISE_AND_HANG = """
import sys, time
from runner.limits import raising
from runner.workload import get
with raising.raised_limits(int(sys.argv[1]), [{}], print, workload=get("connections")) as raised:
    print("raised", *raised, flush=True)
    time.sleep(120)
"""


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_sigkilled_connections_raise_is_restored_by_the_next_command(tmp_path):
    """fs.nr_open and net.core.somaxconn raised by a process killed with SIGKILL stay raised (no
    finally runs), and the next memrun command puts both back from the journal."""
    from runner.limits import journal
    from tests.support.cli import ROOT
    from tests.support.cli import run as memrun_cli

    require(_can_write(SOMAXCONN) and _can_write(NR_OPEN), "root with writable fs.nr_open and somaxconn")
    with _machine_lock():
        before = (int(NR_OPEN.read_text()), int(SOMAXCONN.read_text()))
        require(before[1] < 65_000, "net.core.somaxconn below what a connections sweep asks")
        n = before[0] - 256 + 1  # one past what fs.nr_open lets a server's RLIMIT_NOFILE hold
        p = subprocess.Popen(
            [sys.executable, "-c", RAISE_AND_HANG, str(n)], cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        try:
            said = []  # each change as it is made, then "raised NAME..."
            while not (said and said[-1].startswith("raised")) and p.stdout:
                said.append(p.stdout.readline().strip() or "EOF")
                assert said[-1] != "EOF", said
            assert said[-1].split() == ["raised", "fs.nr_open", "net.core.somaxconn"], said
            raised = (int(NR_OPEN.read_text()), int(SOMAXCONN.read_text()))
            assert raised[0] > before[0] and raised[1] == 65_535
            assert said[:-1] == [
                f"fs.nr_open {before[0]} -> {raised[0]}",
                f"net.core.somaxconn {before[1]} -> 65535",
            ]
            assert journal.journal_path().exists()
            p.kill()
            p.wait(timeout=30)
            assert (int(NR_OPEN.read_text()), int(SOMAXCONN.read_text())) == raised, (
                "no cleanup after SIGKILL"
            )
            # Any memrun command restores, another session's too: ours is checked when it came first.
            ours = journal.journal_path().exists()
            after = memrun_cli("limits", tmp_path=tmp_path)
        finally:
            p.kill()
            p.wait(timeout=30)
            journal.recover(lambda line: None)  # a failed assertion above must not leave them raised
        assert after.returncode == 0, after.stderr
        if ours:
            assert f"restored kernel limits left raised by memrun PID {p.pid}" in after.stderr
            assert f"fs.nr_open {raised[0]} -> {before[0]}" in after.stderr
            assert f"net.core.somaxconn {raised[1]} -> {before[1]}" in after.stderr
        assert (int(NR_OPEN.read_text()), int(SOMAXCONN.read_text())) == before
        assert not journal.journal_path().exists()


class _Raised(Exception):
    """Stops a sweep at its raise, before anything runs."""


@pytest.mark.parametrize("workload", ["sleep", "connections"])
def test_a_sweep_raises_for_the_workload_its_variants_run(tmp_path, monkeypatch, workload):
    from runner import sweep, tasks
    from runner.campaign import CampaignSettings
    from runner.inputs import SleepSpec
    from runner.results import ResultsDir
    from tests.support.runs import FD_TASKS

    asked: list[tuple] = []

    def record(n: int, per_task: list[dict], log: object, workload: object = None) -> None:
        asked.append((n, per_task, workload))
        raise _Raised

    monkeypatch.setattr(sweep, "raised_limits", record)
    variants = tasks.load_folder(FD_TASKS / "fdtest").variants
    campaign = CampaignSettings(
        variants, ResultsDir(tmp_path / "res"), workload=workloads.get(workload), raise_limits=True
    )
    opts = sweep.SweepOptions(campaign, [10, 1000], SleepSpec(1.0), 1)
    with pytest.raises(_Raised):
        sweep.run_sweep(opts)
    per_task = [{}, {"threads": 1, "maps": 2}] if workload == "connections" else [{}, {}]
    assert asked == [(1000, per_task, workloads.get(workload))]
