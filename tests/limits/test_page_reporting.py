"""runner.limits.page_reporting: a VM's free page reporting held back while memrun measures, and
put back after, however memrun ends. On fake parameter files, then for real where this machine's
kernel has the parameters (on one without them, a sweep says nothing was held)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from runner.limits import journal, page_reporting
from tests.support.cli import memrun, run

REAL = page_reporting.PARAMETERS


@pytest.fixture
def params(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fake parameter files at the kernel's defaults here, and a journal of the test's own."""
    d = tmp_path / "parameters"
    d.mkdir()
    (d / "min_free_ms").write_text("0\n")
    (d / "max_waiting_mib").write_text("1024\n")
    monkeypatch.setattr(journal, "STATE_DIR", tmp_path / "state")
    monkeypatch.delenv(page_reporting.ENV, raising=False)
    return d


def _values(d: Path) -> tuple[str, str]:
    return (d / "min_free_ms").read_text().strip(), (d / "max_waiting_mib").read_text().strip()


def test_held_for_the_block_and_put_back_after_with_the_journal_cleared(params):
    said: list[str] = []
    with page_reporting.held(said.append, params) as done:
        assert _values(params) == (str(page_reporting.HOLD_MS), str(page_reporting.HOLD_WAITING_MIB))
        assert page_reporting.state(params) == "held"
        _owner, entries = journal.read() or (None, [])
        assert {(e.path, e.old) for e in entries} == {
            (str(params / "min_free_ms"), 0),
            (str(params / "max_waiting_mib"), 1024),
        }
        assert len(done) == 2
    assert _values(params) == ("0", "1024") and page_reporting.state(params) == "reports after 0 ms"
    assert said == [] and not journal.journal_path().exists()


def test_put_back_when_the_block_raises(params):
    with pytest.raises(KeyboardInterrupt), page_reporting.held(lambda line: None, params):
        raise KeyboardInterrupt
    assert _values(params) == ("0", "1024")


def test_a_value_another_memrun_holds_is_left_to_it(params):
    (params / "min_free_ms").write_text(f"{page_reporting.HOLD_MS}\n")
    with page_reporting.held(lambda line: None, params) as done:
        assert [c.name for c in done] == ["page_reporting.max_waiting_mib"]
    assert _values(params) == (str(page_reporting.HOLD_MS), "1024")


def test_left_alone_when_asked_and_where_the_kernel_has_no_such_parameters(params, tmp_path, monkeypatch):
    assert (
        page_reporting.hold_back(tmp_path / "none") == [] and page_reporting.state(tmp_path / "none") is None
    )
    monkeypatch.setenv(page_reporting.ENV, "leave")
    with page_reporting.held(lambda line: None, params) as done:
        assert done == [] and _values(params) == ("0", "1024")


def test_a_value_the_kernel_refuses_is_one_line_and_the_measurement_goes_on(params, monkeypatch):
    def refusing(path: Path):  # type: ignore[no-untyped-def]
        def write(value: int) -> None:
            if value > 1024:  # as this kernel refuses a min_free_ms of 500,000
                raise OSError(22, "Invalid argument")
            path.write_text(f"{value}\n")

        return write

    monkeypatch.setattr(page_reporting, "_writer", refusing)
    said: list[str] = []
    with page_reporting.held(said.append, params) as done:
        assert done == [] and _values(params) == ("0", "1024")
    assert len(said) == 2 and all(
        line.startswith("memrun: could not hold free page reporting back") for line in said
    )
    assert "Invalid argument" in said[0] and not journal.journal_path().exists()


def test_the_journal_keeps_a_commands_entries_apart_from_a_sweeps_raised_limits(params):
    mine = [journal.Entry("page_reporting.min_free_ms", str(params / "min_free_ms"), 0, 300000)]
    sweep = [journal.Entry("vm.max_map_count", "vm/max_map_count", 65530, 131072)]
    journal.record(mine)
    journal.record(sweep)
    assert journal.read()[1] == mine + sweep  # type: ignore[index]
    journal.clear(sweep)
    assert journal.read()[1] == mine  # type: ignore[index]
    journal.clear(mine)
    assert not journal.journal_path().exists()


def _real() -> tuple[str, str] | None:
    try:
        return _values(REAL)
    except OSError:
        return None


def _start(out: Path) -> dict:
    starts = [json.loads(line) for line in (out / "sweeps.jsonl").read_text().splitlines()]
    return next(s for s in starts if s.get("event") == "start")


@pytest.mark.serial
@pytest.mark.quiet  # the guest group's memrun commands put back the same journal's entries
def test_a_sweep_holds_it_while_it_runs_and_a_sigkilled_ones_hold_is_put_back_by_the_next_command(tmp_path):
    """The real parameters where this kernel has them: held while a sweep of the fake runs, as its
    start record says, and as they were after it; after a SIGKILL, the next command puts them back
    and says so. Without them, the start record says there was nothing to hold."""
    before = _real()
    out = tmp_path / "res"
    p = run("sweep", "-r", "fake", "--n", "1", "--sleep", "0.5", "--out", str(out), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert _start(out).get("page_reporting") == (None if before is None else "held")
    assert _real() == before
    if before is None or before[0] == str(page_reporting.HOLD_MS):
        return
    killed = memrun(
        "sweep", "-r", "fake", "--n", "1", "--sleep", "60", "--out", str(tmp_path / "k"), tmp_path=tmp_path
    )
    deadline = time.monotonic() + 60
    while _real() == before and time.monotonic() < deadline and killed.poll() is None:
        time.sleep(0.1)
    assert _real() != before, "the sweep never held free page reporting back"
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    assert _real() != before, "nothing is left to put back after a SIGKILL"
    nxt = run("limits", tmp_path=tmp_path)
    assert _real() == before
    said = [line for line in nxt.stderr.splitlines() if "page_reporting.min_free_ms" in line]
    assert len(said) == 1 and "which is gone" in said[0], nxt.stderr
