"""The verdict of a connections run, from the server's result and the client's report."""

from __future__ import annotations

import pytest

from runner.measure.result import RunResult
from runner.workloads.connections.client import ClientReport
from runner.workloads.connections.judge import judge


def result(**changes) -> RunResult:  # type: ignore[no-untyped-def]
    base = dict(
        argv=["server"],
        started_at="2026-11-23T00:00:00+00:00",
        exit_code=0,
        signal=None,
        timed_out=False,
        interrupted=False,
        error=None,
        wall_s=12.0,
        user_s=0.1,
        sys_s=0.2,
        ready_n=1000,
        ready_s=1.5,
        stdout_other=0,
        peak_rss=50_000_000,
        peak_rss_source="kernel-hwm",
        hwm_max=50_000_000,
        hwm_sum=50_000_000,
        sampled_peak_rss=50_000_000,
        ru_maxrss=50_000_000,
        procs_max=1,
        threads_max=1,
        pte_peak=0,
        cgroup_version="v1",
        cgroup_peak=60_000_000,
        cgroup_kernel_peak=5_000_000,
    )
    return RunResult(**{**base, **changes})


def client(**summary) -> ClientReport:  # type: ignore[no-untyped-def]
    s = {"n": 1000, "connected": 1000, "dropped": 0, "connect_errors": 0, "refused_waits": 0, "error": None}
    return ClientReport(summary={**s, **summary}, exit_code=0, signal=None, error=None)


def test_valid_says_how_long_the_connections_were_held():
    v = judge(result(), client(), 1000, 10, held_s=10.02)
    assert (
        v.valid
        and v.reason == "`ready 1000` after 1.50 s; 1,000 connections held 10.02 s, none dropped, exit 0"
    )


def test_spawning_never_outlasts_the_hold_which_begins_at_ready():
    assert judge(result(ready_s=25.0, wall_s=36.0), client(), 1000, 10).valid


def test_a_server_that_drops_connections_is_invalid():
    v = judge(result(), client(dropped=7, first_drop_s=2.25), 1000, 10)
    assert (v.verdict, v.code) == ("invalid", "dropped")
    assert "closed or reset 7 of 1,000 connections before memrun closed them" in v.reason


def test_a_client_that_could_not_open_n_is_invalid():
    v = judge(
        result(timed_out=True, ready_n=None, ready_s=None, exit_code=None),
        client(connected=600, connect_errors=101, error="101 connect errors (last: Connection timed out)"),
        1000,
        10,
    )
    assert (v.verdict, v.code) == ("invalid", "connect-failed")
    assert "opened 600 of 1,000 connections (101 connect error(s); 101 connect errors" in v.reason


def test_nothing_listening_says_so():
    v = judge(
        result(timed_out=True, ready_n=None, ready_s=None, exit_code=None),
        client(connected=0, refused_waits=500),
        1000,
        10,
        port=23456,
    )
    assert "opened 0 of 1,000 connections (nothing accepted connections on 127.0.0.1:23456)" in v.reason


def test_a_server_that_never_says_ready_is_a_timeout():
    v = judge(result(timed_out=True, ready_n=None, ready_s=None, exit_code=None), client(), 1000, 10)
    assert (v.verdict, v.code) == ("failed", "timeout") and "no `ready` line" in v.reason


def test_a_server_exiting_non_zero_is_judged_as_the_server_failed():
    v = judge(result(exit_code=1, stderr_tail=["boom"]), client(dropped=1000), 1000, 10)
    assert (v.verdict, v.code) == ("failed", "exit") and "boom" in v.reason


def test_a_client_that_ended_early_stopped_the_run_with_its_reason():
    stopped = result(
        exit_code=None,
        signal="SIGKILL",
        ready_n=None,
        ready_s=None,
        stopped_reason="the load client ended before memrun told it to close",
    )
    gave_up = client(connected=20_000, error="socket() failed after 19,990 connections: Too many open files")
    v = judge(stopped, gave_up, 1_000_000, 10)
    assert v.code == "connect-failed" and v.reason.startswith("stopped: the load client ended")
    assert "Too many open files" in v.reason


@pytest.mark.parametrize(
    "report, words",
    [
        (None, "it was never started"),
        (
            ClientReport(1, None, None, ["memrun-connect: bad"]),
            "without a summary (exit 1): memrun-connect: bad",
        ),
        (ClientReport(None, None, "cannot execute x"), "it could not start: cannot execute x"),
    ],
)
def test_a_client_without_a_summary_is_invalid(report, words):
    v = judge(result(), report, 1000, 10)
    assert (v.verdict, v.code) == ("invalid", "client-failed") and words in v.reason


def test_a_server_out_of_memory_stays_out_of_memory():
    capped = result(
        exit_code=None,
        signal="SIGKILL",
        memory_cap=64_000_000,
        cgroup_peak=64_000_000,
        cgroup_oom_kills=1,
        ready_n=None,
        ready_s=None,
    )
    v = judge(capped, client(dropped=1000), 1000, 10)
    assert v.code == "out-of-memory"


def test_a_server_out_of_descriptors_is_judged_by_the_limit_memrun_set_for_its_connections():
    """EMFILE in a connections server: the RLIMIT_NOFILE memrun set for N connections is the
    limit named, in the workload's words; not the one a sleep program inherits (whose remedy, a
    `ulimit -n` in the shell, does nothing for a connections run)."""
    from runner.workloads.connections import CONNECTIONS

    emfile = ["OSError: [Errno 24] Too many open files"]
    r = result(exit_code=1, ready_n=None, ready_s=None, stderr_tail=emfile)
    v = judge(r, client(connected=5000), 10_000, 10, workload=CONNECTIONS)
    assert v.code == "fd-limit", v
    assert "set by memrun for N = 10,000" in v.reason and "10,000 connections" in v.reason, v.reason
    assert "ulimit -n" not in (v.remedy or "")
