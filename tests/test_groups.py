"""The suite's own grouping (tests/support/groups.py): `longest` tests run first, `quiet` tests last,
waiting for the guest group that scripts/test runs beside them for as long as it holds its lock."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.support import groups


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


def test_a_quiet_test_waits_while_the_guest_group_holds_its_lock(tmp_path, monkeypatch):
    running = tmp_path / "guests.running"
    monkeypatch.setenv(groups.GUESTS_RUNNING_ENV, str(running))
    holder = _holder(running, 1.5)
    waited = groups.after_the_guests(Item("q", {"serial", "quiet"}))  # type: ignore[arg-type]
    assert Path(f"{running}.released").exists(), "returned while the guest group's lock was still held"
    assert holder.wait() == 0 and waited is not None and waited > 0, waited


def test_other_tests_and_a_free_lock_do_not_wait(tmp_path, monkeypatch):
    running = tmp_path / "guests.running"
    monkeypatch.setenv(groups.GUESTS_RUNNING_ENV, str(running))
    holder = _holder(running, 60)
    try:  # not quiet: it returns at once, while the lock is held (else this test would hang 60 s)
        assert groups.after_the_guests(Item("s", {"serial"})) is None  # type: ignore[arg-type]
        assert holder.poll() is None
    finally:
        holder.kill()
        holder.wait()
    assert groups.after_the_guests(Item("q", {"serial", "quiet"})) == 0.0  # type: ignore[arg-type]
    monkeypatch.delenv(groups.GUESTS_RUNNING_ENV)  # no guests beside: nothing to wait for
    assert groups.after_the_guests(Item("q", {"serial", "quiet"})) is None  # type: ignore[arg-type]
