"""execute() for the http workload against a fake server of known behaviour (real processes, real
cgroups, real CPUs): the open-loop client's latency shows a stall a closed-loop count misses, a
wrong answer makes the run invalid, and a server too slow for a rate is saturated, not a crash."""

from __future__ import annotations

import os

import pytest

from runner.execute import execute
from runner.workloads.http.client import HttpClient, ensure_client
from runner.workloads.http.execute import free_port

pytestmark = pytest.mark.serial  # latencies and rates of a server under load, holding the machine lock

SHORT = {"warmup": 1.0, "window": 4.0, "slo": 0.1, "server_cpus": []}


def _run(variant, c: int, rates: list[int], monkeypatch, mode: str = "ok", **more):
    monkeypatch.setenv("FAKE_HTTP", mode)
    return execute(variant, c, 10, params={**SHORT, "rate": rates, **more})


def test_a_server_that_answers_right_is_valid_at_its_rate(fake_http, machine, monkeypatch):
    """Each rate's phase achieves R within 1 %, every answer was checked, the idle and load
    figures come from the run's own samples, and the server and client had CPUs of their own."""
    ex = _run(fake_http, 20, [200, 400], monkeypatch)
    assert ex.judged.valid, ex.judged
    client = ex.client
    assert [p["rate"] for p in client["phases"]] == [200, 400]
    for phase in client["phases"]:
        assert abs(phase["achieved_rate"] - phase["rate"]) <= 0.01 * phase["rate"], phase["achieved_rate"]
        assert phase["scheduled"] == phase["rate"] * 4 and phase["unanswered"] == 0 and phase["wrong"] == 0
        assert phase["latency"]["count"] == phase["scheduled"]
        assert phase["server"]["samples"] > 10 and phase["server"]["cpu_per_1k_s"] > 0
        assert phase["server"]["peak_rss"] > 5_000_000, "a Python interpreter's RSS"
    assert client["summary"]["not_found_checked"] == 1 and client["summary"]["wrong"] == 0
    assert client["idle"]["rss"] > 5_000_000
    if len(os.sched_getaffinity(0)) > 1:
        assert client["cpus"]["server"] != client["cpus"]["client"]
    assert ex.argv[:2] == ["taskset", "-c"] and ex.result.stopped_reason == "the load is over"
    assert "200/s p99" in ex.judged.reason and "400/s p99" in ex.judged.reason


def test_a_stall_shows_in_the_open_loop_p99_not_in_the_closed_loop_one(fake_http, machine, monkeypatch):
    """The fake server blocks 500 ms once a second. Measured from each request's scheduled time
    the stall is in p99 (and in p50's neighbourhood: a quarter second on average for the requests
    due during it); measured from the send, as a closed-loop tool does, only the few requests in
    flight when it began see it, and p99 stays small."""
    ex = _run(fake_http, 4, [1000], monkeypatch, mode="stall", slo=10.0)
    assert ex.judged.valid, ex.judged
    phase = ex.client["phases"][0]
    assert phase["latency"]["p99_us"] > 300_000, phase["latency"]
    assert phase["service"]["p99_us"] < 100_000, phase["service"]
    assert phase["service"]["max_us"] > 300_000, "the requests in flight at the stall saw it"


def test_a_server_on_a_dual_stack_ipv6_socket_is_seen_listening(fake_http, machine, monkeypatch):
    """The JVM listens on an IPv6 socket bound to ::ffff:127.0.0.1 even when told 127.0.0.1: the
    client finds it in /proc/net/tcp6 and connects."""
    monkeypatch.setenv("FAKE_HTTP_V6", "1")
    ex = _run(fake_http, 5, [100], monkeypatch)
    assert ex.judged.valid, ex.judged
    assert ex.client["listening_s"] is not None


def test_a_wrong_location_makes_the_run_invalid(fake_http, machine, monkeypatch):
    ex = _run(fake_http, 5, [100], monkeypatch, mode="wrong")
    assert (ex.judged.verdict, ex.judged.code) == ("invalid", "wrong-answer"), ex.judged
    assert "/Renard-0.png" in ex.judged.reason


def test_a_server_too_slow_for_the_rate_is_saturated_not_a_crash(fake_http, machine, monkeypatch):
    """2 ms of CPU per request caps the fake at about 500 answers a second: 200/s holds, 2,000/s
    saturates (achieved far short), and no higher rate is sent after it."""
    ex = _run(fake_http, 10, [200, 2000, 4000], monkeypatch, mode="slow")
    assert ex.judged.valid, ex.judged
    phases = ex.client["phases"]
    assert [p["rate"] for p in phases] == [200, 2000], "the load stops at the first saturated rate"
    assert abs(phases[0]["achieved_rate"] - 200) <= 2
    assert phases[1]["achieved_rate"] < 0.5 * 2000
    assert "2,000/s saturated (achieved" in ex.judged.reason


def test_a_server_that_exits_during_the_load_fails(fake_http, machine, monkeypatch):
    monkeypatch.setenv("FAKE_HTTP", "ok")
    import dataclasses

    dies = dataclasses.replace(fake_http, run=["sh", "-c", 'timeout 2 "$0" "$@"; exit 3', *fake_http.run])
    ex = execute(dies, 5, 10, params={**SHORT, "rate": [100]})
    assert (ex.judged.verdict, ex.judged.code) == ("failed", "server-exited"), ex.judged


def test_the_client_checks_the_404_and_exits_cleanly_on_eof(fake_http, machine, monkeypatch):
    """Without a server the client waits; with one it opens C, checks a 404, and on stdin's EOF
    closes everything and reports exit 0."""
    import subprocess
    import sys
    import time

    port = free_port()
    script = fake_http.folder.dir / "http_server.py"
    server = subprocess.Popen([sys.executable, str(script), str(port), "1000"])
    try:
        client = HttpClient(port, 8, 1000, nofile=256, memory_cap=None, cpus=None)
        client.start()
        deadline = time.monotonic() + 10
        while client.connected_at is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert client.connected_at is not None
        report = client.finish()
    finally:
        server.kill()
        server.wait()
    assert report.exit_code == 0 and report.summary["not_found_checked"] == 1 and report.summary["open"] == 0
    assert report.cgroup_reason is not None or report.cgroup_peak is not None


def test_the_client_builds():
    pytest.importorskip("runner.workloads.http.client")
    assert ensure_client().exists()
