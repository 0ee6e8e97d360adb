"""runner.limits.journal: what a dead memrun raised is put back by the next one, and only then."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from runner.limits import journal
from runner.state import Owner
from tests.support.process import require

MAP_COUNT = Path("/proc/sys/vm/max_map_count")


def _dead_owner() -> Owner:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return Owner(p.pid, None, "memrun sweep --raise-limits (test)", "earlier")


def _write(owner: Owner, entries: list[journal.Entry]) -> None:
    journal.STATE_DIR.mkdir(parents=True, exist_ok=True)
    data = {"owner": owner.to_dict(), "sysctls": [e.__dict__ for e in entries]}
    journal.journal_path().write_text(json.dumps(data))


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_dead_owners_raised_value_is_restored_once_and_said_in_one_line():
    require(os.geteuid() == 0 and os.access(MAP_COUNT, os.W_OK), "root with a writable /proc/sys")
    require(not journal.journal_path().exists(), "no journal of a real sweep in the way")
    before = int(MAP_COUNT.read_text())
    MAP_COUNT.write_text(str(before + 4096))
    try:
        _write(_dead_owner(), [journal.Entry("vm.max_map_count", "vm/max_map_count", before, before + 4096)])
        said: list[str] = []
        assert journal.recover(said.append)
        assert int(MAP_COUNT.read_text()) == before
        assert len(said) == 1 and f"vm.max_map_count {before + 4096} -> {before}" in said[0]
        assert not journal.journal_path().exists() and not journal.recover(said.append)
    finally:
        MAP_COUNT.write_text(str(before))
        journal.clear()


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_live_owners_journal_is_left_alone():
    require(os.geteuid() == 0, "root")
    require(not journal.journal_path().exists(), "no journal of a real sweep in the way")
    try:
        _write(Owner.me(), [journal.Entry("vm.max_map_count", "vm/max_map_count", 1, 2)])
        assert not journal.recover(lambda line: None)
        assert journal.journal_path().exists()
    finally:
        journal.clear()


def test_putting_back_refuses_a_live_owner_and_anyone_but_root(monkeypatch):
    """`memrun limits --restore`: nothing to put back, a memrun still running, not root; else the
    journal is recovered even where a command's start would leave it."""
    monkeypatch.setattr(journal, "read", lambda: None)
    assert journal.put_back(print) is False
    monkeypatch.setattr(journal, "read", lambda: (Owner.me(), []))
    with pytest.raises(journal.Held, match="is running and holds the raised limits"):
        journal.put_back(print)
    monkeypatch.setattr(journal, "read", lambda: (_dead_owner(), []))
    monkeypatch.setattr(journal.os, "geteuid", lambda: 1000)
    with pytest.raises(journal.NotRoot, match="needs root"):
        journal.put_back(print)
    forced: list[bool] = []
    monkeypatch.setattr(journal.os, "geteuid", lambda: 0)
    monkeypatch.setattr(journal, "recover", lambda log, force: forced.append(force) or True)
    assert journal.put_back(print) and forced == [True]
