"""The suite's own grouping (tests/support/groups.py): `longest` tests run first, `quiet` tests last,
waiting for the guest group that scripts/test runs beside them for as long as it holds its lock."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass, field

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
    """A process that holds path locked exclusively for seconds, as scripts/test does (flock)."""
    code = (
        "import fcntl, sys, time\n"
        f"f = open({str(path)!r}, 'a'); fcntl.flock(f, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        f"time.sleep({seconds})\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "held"
    return p


def test_a_quiet_test_waits_while_the_guest_group_holds_its_lock(tmp_path, monkeypatch):
    running = tmp_path / "guests.running"
    monkeypatch.setenv(groups.GUESTS_RUNNING_ENV, str(running))
    holder = _holder(running, 1.5)
    t0 = time.monotonic()
    groups.after_the_guests(Item("q", {"serial", "quiet"}))  # type: ignore[arg-type]
    waited = time.monotonic() - t0
    assert holder.wait(timeout=10) == 0
    assert waited >= 1.0, f"returned after {waited:.2f} s while the lock was held"


def test_other_tests_and_a_free_lock_do_not_wait(tmp_path, monkeypatch):
    running = tmp_path / "guests.running"
    monkeypatch.setenv(groups.GUESTS_RUNNING_ENV, str(running))
    holder = _holder(running, 5)
    try:
        t0 = time.monotonic()
        groups.after_the_guests(Item("s", {"serial"}))  # type: ignore[arg-type]
        assert time.monotonic() - t0 < 0.5, "a serial test that is not quiet waited"
    finally:
        holder.kill()
        holder.wait()
    t0 = time.monotonic()
    groups.after_the_guests(Item("q", {"serial", "quiet"}))  # type: ignore[arg-type]
    assert time.monotonic() - t0 < 0.5, "a quiet test waited on a lock nobody holds"
    monkeypatch.delenv(groups.GUESTS_RUNNING_ENV)
    groups.after_the_guests(Item("q", {"serial", "quiet"}))  # type: ignore[arg-type]  # no guests beside
