"""Crash safety of the store: a torn last line is loaded around and moved aside, never guessed at;
a failed append is undone, so a full disk never leaves half a line."""

from __future__ import annotations

import errno
import json
import os
import warnings

import pytest

from runner.results import ResultsDir, ResultsError, ResultsWriteError, TornRecordWarning, read_jsonl
from runner.results.disk import disk_of, human_bytes
from runner.results.summary import load_runs


def _line(n: int) -> bytes:
    row = {"run_id": f"r{n}", "variant": "go", "n": n, "verdict": "valid", "peak_rss": 1000 * n}
    return json.dumps(row).encode() + b"\n"


WHOLE = _line(1) + _line(2)


@pytest.mark.parametrize(
    "torn",
    [
        _line(3)[:25],  # cut mid-write: no newline
        _line(3)[:25] + b"\n",  # cut, yet a newline made it
        b"\0" * 40,  # a power cut after the size was updated but not the data (ext4, XFS)
        _line(3)[:-1][:10] + "é".encode()[:1],  # cut inside a UTF-8 character
    ],
)
def test_a_torn_last_line_is_left_out_with_a_warning(tmp_path, torn):
    f = tmp_path / "runs.jsonl"
    f.write_bytes(WHOLE + torn)
    with pytest.warns(TornRecordWarning) as caught:
        rows = read_jsonl(f)
    assert [r["n"] for r in rows] == [1, 2]
    (w,) = caught
    assert str(w.message) == (
        f"{f}:3: torn last record (a crash or full disk mid-write?) left out; "
        "memrun sweep --resume moves it aside"
    )
    assert w.message.line == 3 and w.message.path == f
    with pytest.warns(TornRecordWarning):
        assert sorted(load_runs([tmp_path])["n"]) == [1, 2]
    assert f.read_bytes() == WHOLE + torn  # reading never changes a file


def test_blank_lines_after_a_torn_line_do_not_hide_it(tmp_path):
    f = tmp_path / "sweeps.jsonl"
    f.write_bytes(WHOLE + b'{"sweep_id": "x", "ev\n\n  \n')
    with pytest.warns(TornRecordWarning, match=r"sweeps.jsonl:3: torn"):
        assert len(read_jsonl(f)) == 2


@pytest.mark.parametrize("bad", [b'{"n": 3, "ver\n', b"\0\0\0\n", b"\xff\xfe{}\n"])
def test_a_bad_line_in_the_middle_is_an_error_and_the_file_is_left_alone(tmp_path, bad):
    f = tmp_path / "runs.jsonl"
    f.write_bytes(_line(1) + bad + _line(2))
    with pytest.raises(ResultsError, match=r"runs.jsonl:2: corrupt or truncated record"):
        read_jsonl(f)
    d = ResultsDir(tmp_path)
    with pytest.raises(ResultsError, match=r"runs.jsonl:2: "):
        d.existing_rows()
    assert f.read_bytes() == _line(1) + bad + _line(2)


def test_a_last_line_that_parses_but_is_no_object_is_still_an_error(tmp_path):
    f = tmp_path / "runs.jsonl"
    f.write_bytes(WHOLE + b"[3]")
    with pytest.raises(ResultsError, match=r"runs.jsonl:3: not a JSON object"):
        read_jsonl(f)


def test_existing_rows_for_resume_leave_the_torn_row_out_silently(tmp_path):
    (tmp_path / "runs.jsonl").write_bytes(WHOLE + _line(3)[:30])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [r["n"] for r in ResultsDir(tmp_path).existing_rows()] == [1, 2]


def test_repair_moves_exactly_the_torn_bytes_aside(tmp_path):
    d = ResultsDir(tmp_path)
    torn_runs, torn_timeline = _line(3)[:30], b'{"run_id":"r3","timeline":[[0.05,1'
    (tmp_path / "runs.jsonl").write_bytes(WHOLE + torn_runs)
    (tmp_path / "timelines.jsonl").write_bytes(_line(7) + torn_timeline)
    (tmp_path / "sweeps.jsonl").write_bytes(_line(9))
    moved = {t.path.name: t for t in d.repair()}
    assert set(moved) == {"runs.jsonl", "timelines.jsonl"}
    runs = moved["runs.jsonl"]
    assert (runs.line, runs.offset, runs.size) == (3, len(WHOLE), len(torn_runs))
    assert runs.side.parent == tmp_path and runs.side.name.startswith("runs.jsonl.torn-")
    assert runs.side.read_bytes() == torn_runs
    assert moved["timelines.jsonl"].side.read_bytes() == torn_timeline
    assert (tmp_path / "runs.jsonl").read_bytes() == WHOLE
    assert (tmp_path / "timelines.jsonl").read_bytes() == _line(7)
    assert (tmp_path / "sweeps.jsonl").read_bytes() == _line(9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(read_jsonl(tmp_path / "runs.jsonl")) == 2
    assert d.repair() == []  # nothing left to do; the side files stay
    assert runs.side.exists()


def test_a_second_tear_in_the_same_second_gets_its_own_side_file(tmp_path):
    d = ResultsDir(tmp_path)
    f = tmp_path / "runs.jsonl"
    f.write_bytes(WHOLE + b'{"a')
    (first,) = d.repair()
    f.write_bytes(WHOLE + b'{"b')
    (second,) = d.repair()
    assert first.side != second.side
    assert (first.side.read_bytes(), second.side.read_bytes()) == (b'{"a', b'{"b')


def test_repair_ends_a_whole_last_line_with_its_newline(tmp_path):
    d = ResultsDir(tmp_path)
    f = tmp_path / "runs.jsonl"
    f.write_bytes(WHOLE[:-1])  # the newline was the part a crash cut off
    assert d.repair() == []
    d.add_run(json.loads(_line(3)))
    assert [r["n"] for r in read_jsonl(f)] == [1, 2, 3]


def _full_after(limit: int):
    """os.write that takes `limit` bytes in all, then fails as a full disk does."""
    real = os.write
    left = [limit]

    def write(fd, data):
        if left[0] <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = real(fd, bytes(data[: left[0]]))
        left[0] -= n
        return n

    return write


def test_a_failed_append_is_cut_back_to_where_it_was(tmp_path, monkeypatch):
    d = ResultsDir(tmp_path)
    d.add_run(json.loads(_line(1)), timeline=[[0.0, 1, 1, 1, None]])
    runs, timelines = (tmp_path / "runs.jsonl").read_bytes(), (tmp_path / "timelines.jsonl").read_bytes()
    monkeypatch.setattr(os, "write", _full_after(20))  # part of the timeline goes in, then ENOSPC
    with pytest.raises(ResultsWriteError) as e:
        d.add_run(json.loads(_line(2)), timeline=[[0.0, 2, 1, 1, None]] * 50)
    monkeypatch.undo()
    assert e.value.errno == errno.ENOSPC and e.value.no_space and e.value.remedy == "free space"
    assert str(e.value).startswith("no space left on ")
    assert str(e.value).endswith(f" free) writing {tmp_path / 'timelines.jsonl'}")
    assert (tmp_path / "runs.jsonl").read_bytes() == runs
    assert (tmp_path / "timelines.jsonl").read_bytes() == timelines
    assert d.runs_added == 1


def test_a_run_row_that_fails_takes_its_timeline_back_out(tmp_path, monkeypatch):
    d = ResultsDir(tmp_path)
    d.add_run(json.loads(_line(1)), timeline=[[0.0, 1, 1, 1, None]])
    runs, timelines = (tmp_path / "runs.jsonl").read_bytes(), (tmp_path / "timelines.jsonl").read_bytes()
    timeline = [[0.0, 2, 1, 1, None]]
    room = len(json.dumps({"run_id": "r2", "timeline": timeline}, separators=(",", ":"))) + 1
    monkeypatch.setattr(os, "write", _full_after(room + 10))  # the timeline fits, the row does not
    with pytest.raises(ResultsWriteError, match=r"writing .*runs\.jsonl$"):
        d.add_run(json.loads(_line(2)), timeline=timeline)
    monkeypatch.undo()
    assert (tmp_path / "runs.jsonl").read_bytes() == runs
    assert (tmp_path / "timelines.jsonl").read_bytes() == timelines
    assert d.runs_added == 1


def test_ctrl_c_in_the_middle_of_an_append_leaves_no_half_line(tmp_path, monkeypatch):
    d = ResultsDir(tmp_path)
    d.add_sweep({"sweep_id": "x", "event": "start"})
    before = (tmp_path / "sweeps.jsonl").read_bytes()
    real = os.write

    def write_then_interrupt(fd, data):
        real(fd, bytes(data[:7]))
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "write", write_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        d.add_sweep({"sweep_id": "x", "event": "end"})
    monkeypatch.undo()
    assert (tmp_path / "sweeps.jsonl").read_bytes() == before
    # a whole line already written stays, even when the interrupt comes before its fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        d.add_sweep({"sweep_id": "x", "event": "end"})
    monkeypatch.undo()
    assert [r.get("event") for r in read_jsonl(tmp_path / "sweeps.jsonl")] == ["start", "end"]


def test_a_file_whose_first_append_fails_is_not_left_behind(tmp_path, monkeypatch):
    d = ResultsDir(tmp_path)
    monkeypatch.setattr(os, "write", _full_after(5))
    with pytest.raises(ResultsWriteError):
        d.add_sweep({"sweep_id": "x", "event": "start"})
    monkeypatch.undo()
    assert not (tmp_path / "sweeps.jsonl").exists()


def test_repair_leaves_the_file_alone_when_the_side_file_cannot_be_written(tmp_path, monkeypatch):
    f = tmp_path / "runs.jsonl"
    f.write_bytes(WHOLE + b'{"torn')
    monkeypatch.setattr(os, "write", _full_after(2))
    with pytest.raises(ResultsWriteError, match=r"no space left on .* writing .*runs.jsonl.torn-"):
        ResultsDir(tmp_path).repair()
    monkeypatch.undo()
    assert f.read_bytes() == WHOLE + b'{"torn'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.jsonl"]


def test_disk_of_names_the_mount_type_and_free_bytes(tmp_path):
    disk = disk_of(tmp_path / "not-yet" / "runs.jsonl")
    assert str(tmp_path.resolve()).startswith(disk.mount.rstrip("/") + "/")
    assert disk.fstype != "?" and disk.free is not None and disk.free >= 0
    assert str(disk) == f"{disk.mount} ({disk.fstype}, {human_bytes(disk.free)} free)"
    assert disk_of(tmp_path).mount == disk.mount


@pytest.mark.parametrize(
    "n, text",
    [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536 * 1024, "1.5 MiB"), (3 * 1024**3, "3.0 GiB")],
)
def test_human_bytes(n, text):
    assert human_bytes(n) == text
