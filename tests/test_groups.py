"""The suite's own grouping (tests/support/groups.py): `longest` tests run first, `quiet` tests last,
waiting for the guest group and the parallel group that scripts/test runs beside them, for as long
as each holds its lock."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import groups, process


@dataclass
class Item:
    """What groups reads of a pytest item: its id and its marks."""

    nodeid: str
    marks: set[str] = field(default_factory=set)

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.marks else None


def test_longest_tests_go_first_and_quiet_ones_last_in_their_order():
    items = [Item("a", {"serial", "quiet"}), Item("b", {"serial"}), Item("c", {"serial", "quiet"}), Item("d")]
    items += [Item("e", {"longest"}), Item("f")]
    groups.ordered(items)  # type: ignore[arg-type]
    assert [i.nodeid for i in items] == ["e", "b", "d", "f", "a", "c"]


def _holder(path, seconds: float) -> subprocess.Popen:
    """A process that holds path locked exclusively for seconds, as scripts/test does (flock), and
    leaves PATH.released just before it lets go."""
    code = (
        "import fcntl, sys, time\n"
        f"f = open({str(path)!r}, 'a'); fcntl.flock(f, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        f"time.sleep({seconds})\n"
        f"open({str(path) + '.released'!r}, 'w').close(); fcntl.flock(f, fcntl.LOCK_UN)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "held"
    return p


@pytest.mark.parametrize("env", groups.RUNNING_ENVS)
def test_a_quiet_test_waits_while_another_group_holds_its_lock(tmp_path, monkeypatch, env):
    for other in groups.RUNNING_ENVS:  # this test runs in the parallel group, which holds its own
        monkeypatch.delenv(other, raising=False)
    running = tmp_path / "group.running"
    monkeypatch.setenv(env, str(running))
    holder = _holder(running, 1.5)
    waited = groups.after_the_others(Item("q", {"serial", "quiet"}))  # type: ignore[arg-type]
    assert Path(f"{running}.released").exists(), "returned while the group's lock was still held"
    assert holder.wait() == 0 and waited is not None and waited > 0, waited


def test_other_tests_and_free_locks_do_not_wait(tmp_path, monkeypatch):
    guests, parallel = tmp_path / "guests.running", tmp_path / "parallel.running"
    monkeypatch.setenv(groups.GUESTS_RUNNING_ENV, str(guests))
    monkeypatch.setenv(groups.PARALLEL_RUNNING_ENV, str(parallel))
    holder = _holder(guests, 60)
    try:  # not quiet: it returns at once, while the lock is held (else this test would hang 60 s)
        assert groups.after_the_others(Item("s", {"serial"})) is None  # type: ignore[arg-type]
        assert holder.poll() is None
    finally:
        holder.kill()
        holder.wait()
    assert groups.after_the_others(Item("q", {"serial", "quiet"})) == 0.0  # type: ignore[arg-type]
    for env in groups.RUNNING_ENVS:  # no group beside: nothing to wait for
        monkeypatch.delenv(env)
    assert groups.after_the_others(Item("q", {"serial", "quiet"})) is None  # type: ignore[arg-type]


def test_a_leftover_process_of_another_group_is_not_this_ones(monkeypatch):
    """processes_with leaves out what another group started (its MEMRUN_TEST_GROUP differs): the
    parallel group's fake programs run beside the serial group's checks for leftovers."""
    monkeypatch.setenv(process.GROUP_ENV, "serial")
    started = {}
    try:
        for group in ("parallel", "serial", None):
            mark = process.marker()
            env = {k: v for k, v in os.environ.items() if k != process.GROUP_ENV}
            env |= {process.GROUP_ENV: group} if group else {}
            started[group] = (
                mark,
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", mark], env=env),
            )
        deadline = time.monotonic() + 10
        while not all(process.processes_with(m) for g, (m, _) in started.items() if g != "parallel"):
            assert time.monotonic() < deadline, "the processes never showed"
            time.sleep(0.05)
        assert process.processes_with(started["parallel"][0]) == []
        assert [p.pid for p in process.processes_with(started["serial"][0])] == [started["serial"][1].pid]
        assert process.ours([p.pid for _, p in started.values()]) == [
            started["serial"][1].pid,
            started[None][1].pid,
        ]
        monkeypatch.delenv(process.GROUP_ENV)  # run outside scripts/test: every process is ours
        assert len(process.ours([p.pid for _, p in started.values()])) == 3
        assert [p.pid for p in process.processes_with(started["parallel"][0])] == [started["parallel"][1].pid]
    finally:
        for _, p in started.values():
            p.kill()
            p.wait()


def test_an_unbuilt_test_that_builds_a_task_folder_is_named(tmp_path, monkeypatch):
    """While the builds run (BUILDS_PENDING_ENV), a folder of tasks/ in the unbuilt part's own build
    folder is a test's doing; the fakes' folders and memrun's tools are not task programs."""
    tasks, build = tmp_path / "tasks", tmp_path / "build"
    for name in ("go", "rust-threads"):
        (tasks / name).mkdir(parents=True)
        (tasks / name / "task.toml").write_text("")
    (tasks / "notes").mkdir()  # no manifest: not a task folder
    for name in ("fake", "tools", "notes", "go"):
        (build / name).mkdir(parents=True)
    monkeypatch.setattr(groups.paths, "TASKS_DIR", tasks)
    monkeypatch.setattr(groups.paths, "BUILD_DIR", build)
    monkeypatch.delenv(groups.BUILDS_PENDING_ENV, raising=False)
    assert groups.built_task_programs() == []  # the real build folder after the builds: not looked at
    monkeypatch.setenv(groups.BUILDS_PENDING_ENV, "1")
    assert groups.built_task_programs() == ["go"]
