"""Crash safety, done for real: SIGKILL of memrun mid-run and mid-raise, a second sweep beside a
first, a memory cap that stops a run inside its cgroup, and a cell that cannot fit on this machine.

Real signals, real cgroups, real sysctls (raised by a few thousand only), and the fake task program
of known cost; every test checks that nothing is left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runner.limits import journal
from runner.measure import cgroups
from tests.support.cli import FIXTURE_TASKS, memrun, rows, run
from tests.support.process import processes_with, require

pytestmark = pytest.mark.serial  # real runtimes, real limits, real signals: alone on the machine

MAP_COUNT = Path("/proc/sys/vm/max_map_count")
PID_MAX = Path("/proc/sys/kernel/pid_max")


def _root_with_cgroups() -> None:
    require(os.geteuid() == 0, "root (raises sysctls, makes cgroups)")
    require(cgroups.detect()[0] is not None, "a memory cgroup controller")


def _run_cgroups_of(pid: int) -> list[Path]:
    return [cg.path for cg, owner, _ in cgroups.run_cgroups() if owner == pid]


def _wait_for(predicate, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.1)


def _maps_task(tmp_path: Path) -> Path:
    """A copy of the fixture tasks plus a variant that needs one memory mapping per task, so that
    --raise-limits raises vm.max_map_count a little for an N near it (harmless for the machine)."""
    tasks_dir = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, tasks_dir)
    manifest = tasks_dir / "fake" / "task.toml"
    manifest.write_text(
        manifest.read_text()
        + '\n[[variant]]\nname = "fake-maps"\nrun = ["{python}", "{dir}/fake.py", "{n}", "{sleep}"]\n'
        'proof = { kind = "counter", how = "a fake" }\nmodel = "async"\n'
        "[variant.per_task]\nmaps = 1\n"
    )
    return tasks_dir


# Quiet: what a SIGKILLed memrun leaves, any memrun command undoes first, and scripts/test's other
# groups start many (one of theirs removed this run cgroup before the test's own next command
# could, 2026-11-27). At the serial group's end no other memrun runs.
@pytest.mark.quiet
def test_sigkill_mid_run_then_any_command_leaves_nothing(tmp_path):
    _root_with_cgroups()
    out = tmp_path / "res"
    p = memrun("sweep", "--n", "1000", "--sleep", "60", "--out", str(out), tmp_path=tmp_path)
    fake = str(FIXTURE_TASKS / "fake" / "fake.py")
    _wait_for(lambda: processes_with(fake) and _run_cgroups_of(p.pid))
    time.sleep(0.5)
    p.kill()
    p.wait(timeout=30)
    _wait_for(lambda: not processes_with(fake), timeout=15)  # the launcher takes the program along
    assert _run_cgroups_of(p.pid), "the SIGKILLed sweep's cgroup is there until the next command"
    after = run("limits", tmp_path=tmp_path)
    assert after.returncode == 0, after.stderr
    assert "removed 1 run cgroup(s) left by a memrun that is gone" in after.stderr
    assert _run_cgroups_of(p.pid) == [] and processes_with(fake) == []


@pytest.mark.quiet  # the guest group's memrun commands restore the same journal's limits
def test_sigkill_while_limits_are_raised_then_the_next_command_restores_them(tmp_path):
    _root_with_cgroups()
    before = (int(MAP_COUNT.read_text()), int(PID_MAX.read_text()))
    n = before[0] - 256 + 1  # one mapping per task: just past vm.max_map_count
    env = {"MEMRUN_TASKS": str(_maps_task(tmp_path))}
    out = tmp_path / "res"
    p = memrun(
        "sweep",
        "-r",
        "fake-maps",
        "--n",
        str(n),
        "--sleep",
        "60",
        "--raise-limits",
        "--out",
        str(out),
        tmp_path=tmp_path,
        env=env,
    )
    _wait_for(lambda: int(MAP_COUNT.read_text()) > before[0])
    raised = int(MAP_COUNT.read_text())
    assert journal.journal_path().exists()
    p.kill()
    p.wait(timeout=30)
    assert int(MAP_COUNT.read_text()) == raised, "nothing can restore inside a SIGKILLed process"
    after = run("doctor", "fake", tmp_path=tmp_path, env=env)
    assert "restored kernel limits left raised by memrun PID" in after.stderr
    assert f"vm.max_map_count {raised} -> {before[0]}" in after.stderr
    assert (int(MAP_COUNT.read_text()), int(PID_MAX.read_text())) == before
    assert not journal.journal_path().exists()
    assert run("limits", "--restore", tmp_path=tmp_path).stdout.startswith("nothing to restore")


def test_limits_restore_refuses_to_touch_a_live_sweeps_limits(tmp_path):
    _root_with_cgroups()
    before = int(MAP_COUNT.read_text())
    env = {"MEMRUN_TASKS": str(_maps_task(tmp_path))}
    p = memrun(
        "sweep",
        "-r",
        "fake-maps",
        "--n",
        str(before - 255),
        "--sleep",
        "30",
        "--raise-limits",
        "--out",
        str(tmp_path / "res"),
        tmp_path=tmp_path,
        env=env,
    )
    try:
        _wait_for(lambda: int(MAP_COUNT.read_text()) > before)
        refused = run("limits", "--restore", tmp_path=tmp_path)
        assert refused.returncode == 1 and f"PID {p.pid}" in refused.stderr
        assert int(MAP_COUNT.read_text()) > before
    finally:
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
    assert int(MAP_COUNT.read_text()) == before and not journal.journal_path().exists()


def test_a_second_sweep_exits_2_naming_the_first_whose_figures_are_unaffected(tmp_path):
    first = memrun("sweep", "--n", "20000", "--sleep", "3", "--out", str(tmp_path / "a"), tmp_path=tmp_path)
    fake = str(FIXTURE_TASKS / "fake" / "fake.py")
    _wait_for(lambda: processes_with(fake))
    t0 = time.monotonic()
    # without --wait, and without MEMRUN_WAIT=1 (which docs/development.md suggests for the serial
    # group, and which would queue it behind the first)
    out = str(tmp_path / "b")
    second = run(
        "sweep", "--n", "1", "--sleep", "1", "--out", out, tmp_path=tmp_path, env={"MEMRUN_WAIT": "0"}
    )
    took = time.monotonic() - t0
    assert second.returncode == 2 and took < 2.0, (second.returncode, took, second.stderr)
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1 and f"PID {first.pid}" in lines[0] and "memrun sweep --n 20000" in lines[0]
    assert not (tmp_path / "b" / "runs.jsonl").exists()
    first.communicate(timeout=60)
    assert first.returncode == 0
    (row,) = rows(tmp_path / "a")
    assert row["verdict"] == "valid"
    # the fake holds 20000 KiB on top of an interpreter of ~10 MB
    assert 20000 * 1024 < row["peak_rss"] < 20000 * 1024 + 40_000_000


def test_wait_queues_behind_the_first_and_a_dead_holders_lock_is_taken_over(tmp_path):
    first = memrun("sweep", "--n", "1", "--sleep", "3", "--out", str(tmp_path / "a"), tmp_path=tmp_path)
    _wait_for(lambda: processes_with(str(FIXTURE_TASKS / "fake" / "fake.py")))
    queued = run(
        "sweep", "--n", "1", "--sleep", "1", "--wait", "--out", str(tmp_path / "b"), tmp_path=tmp_path
    )
    first.communicate(timeout=60)
    assert queued.returncode == 0 and f"waiting for memrun PID {first.pid}" in queued.stderr
    assert [r["verdict"] for r in rows(tmp_path / "b")] == ["valid"]
    killed = memrun("sweep", "--n", "1", "--sleep", "30", "--out", str(tmp_path / "c"), tmp_path=tmp_path)
    _wait_for(lambda: processes_with(str(FIXTURE_TASKS / "fake" / "fake.py")))
    killed.kill()
    killed.wait(timeout=30)
    after = run("sweep", "--n", "1", "--sleep", "1", "--out", str(tmp_path / "d"), tmp_path=tmp_path)
    assert after.returncode == 0, after.stderr
    assert f"took over the measurement lock from memrun PID {killed.pid}" in after.stderr


def test_memory_cap_stops_a_run_inside_its_cgroup_and_is_recorded(tmp_path):
    _root_with_cgroups()
    out = tmp_path / "res"
    # The fake holds N KiB: 300,000 KiB cannot fit under a 150 MiB cap.
    p = run(
        "sweep",
        "--n",
        "300000",
        "--sleep",
        "1",
        "--memory-cap",
        "150MiB",
        "--out",
        str(out),
        tmp_path=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    (row,) = rows(out)
    assert (row["verdict"], row["code"]) == ("failed", "out-of-memory")
    assert row["reason"].startswith("out of memory (capped at 150 MiB)") and row["cgroup_oom_kills"] >= 1
    assert row["memory_cap"] == 150 * 1024 * 1024
    meta = [json.loads(line) for line in (out / "sweeps.jsonl").read_text().splitlines()]
    assert meta[0]["memory_cap"] == 150 * 1024 * 1024
    assert processes_with(str(FIXTURE_TASKS / "fake" / "fake.py")) == []


def test_a_cell_predicted_past_the_cap_is_not_run(tmp_path):
    _root_with_cgroups()
    out = tmp_path / "res"
    args = ("sweep", "--n", "1e4,1e5,1e6", "--sleep", "1", "--memory-cap", "250MiB", "--out", str(out))
    p = run(*args, tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    small, mid, big = rows(out)
    assert small["verdict"] == mid["verdict"] == "valid"
    assert (big["verdict"], big["code"], big["wall_s"]) == ("failed", "does-not-fit", None)
    assert "1,000,000 tasks need ≈" in big["reason"] and "cap 250 MiB" in big["reason"]


def _oom_kills() -> int:
    for line in Path("/proc/vmstat").read_text().splitlines():
        if line.startswith("oom_kill "):
            return int(line.split()[1])
    return 0


@pytest.mark.slow
def test_a_million_rust_threads_with_raised_limits_end_fast_and_leave_the_host_alone(tmp_path):
    """1M OS threads need ≈ 37 GB of kernel memory: more than this machine has. memrun must say so
    quickly, with the limits put back and nobody OOM-killed, instead of letting the kernel's global
    OOM killer choose among all processes."""
    _root_with_cgroups()
    require(shutil.which("cargo") is not None, "cargo (rust-threads)")
    before = (int(MAP_COUNT.read_text()), int(PID_MAX.read_text()))
    memrun_ = [sys.executable, "-m", "runner"]
    subprocess.run([*memrun_, "build", "rust-threads"], check=True, capture_output=True, timeout=600)
    kills = _oom_kills()
    out = tmp_path / "res"
    t0 = time.monotonic()
    p = subprocess.run(
        [*memrun_, "sweep", "-r", "rust-threads", "--n", "1e6", "--raise-limits", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    assert time.monotonic() - t0 < 60
    (row,) = rows(out)
    assert row["code"] in ("does-not-fit", "out-of-memory"), row["reason"]
    assert (int(MAP_COUNT.read_text()), int(PID_MAX.read_text())) == before
    assert _oom_kills() == kills
