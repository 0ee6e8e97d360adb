"""runner.limits.predict: which limit N tasks of a variant hit, and the largest N that fits."""

from __future__ import annotations

from runner.limits import Hit, host, max_n, predict
from tests.support.here import HERE, JAVA, RUST


def _hits(n: int, per_task: dict) -> dict[str, Hit]:
    return {h.key: h for h in predict(n, per_task, HERE)}


def test_predict_rust_threads_100k_on_the_defaults():
    hits = _hits(100_000, RUST)
    assert set(hits) == {"pid_max", "max_map_count"}
    assert hits["max_map_count"].current == 65530
    assert hits["max_map_count"].needed == 400_256
    assert hits["max_map_count"].remedy == "sysctl -w vm.max_map_count=401408"
    assert hits["pid_max"].needed == 100_000 + 82 + 64 + 300
    assert hits["pid_max"].remedy == "sysctl -w kernel.pid_max=102400"


def test_predict_1m_threads_also_hits_threads_max_and_memory():
    hits = _hits(1_000_000, JAVA)
    assert set(hits) == {"pid_max", "threads_max", "max_map_count", "mem_available"}
    assert hits["mem_available"].target is None and "run fewer" in hits["mem_available"].remedy


def test_predict_nothing_for_async_tasks_or_small_n():
    assert predict(10_000_000, {}, HERE) == []
    assert predict(10_000, RUST, HERE) == []


def test_predict_pid_max_beyond_the_kernel_maximum():
    hit = _hits(5_000_000, {"threads": 1})["pid_max"]
    assert hit.target == host.PID_MAX_LIMIT and hit.remedy.startswith("impossible here")


def test_predict_strict_overcommit_and_rlimit_as():
    strict = {**HERE, "overcommit_memory": 2, "as_soft": 1 << 30}
    keys = {h.key for h in predict(10_000, RUST, strict)}
    assert {"commit_limit", "as_soft"} <= keys


def test_max_n_matches_where_the_real_runs_stopped():
    # rust-threads really stopped at 16,366-16,374 threads under max_map_count 65530.
    n, hit = max_n(RUST, HERE)
    assert hit.key == "max_map_count" and 16_000 < n <= 16_374
    n, hit = max_n(JAVA, HERE)
    assert hit.key == "pid_max" and 32_000 < n < 32_768
    assert max_n({}, HERE) is None
