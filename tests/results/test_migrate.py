"""runner.results.migrate: records of older formats read as this version writes them; a newer
format is refused in one line naming file and line; every writer stamps the format."""

from __future__ import annotations

import json

import pytest

from runner.results import ResultsDir, ResultsError, RunRecord, read_jsonl
from runner.results.load import load_capacity, load_records, load_sweeps
from runner.results.migrate import FORMAT, upgrade
from tests.support.runs import result

OLD_RUN = {"variant": "go", "n": 1, "verdict": "valid", "peak_rss": 2 << 20, "wall_s": 1.0, "sweep_id": "s1"}
OLD_START = {"sweep_id": "s1", "event": "start", "label": "box"}
OLD_ANSWER = {"variant": "go", "budget_bytes": 1 << 28, "max_n": 90_000, "capacity_id": "s1"}


def _write(path, rows) -> None:  # type: ignore[no-untyped-def]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_a_format_1_directory_loads_with_every_rows_workload_named(tmp_path):
    _write(tmp_path / "runs.jsonl", [OLD_RUN])
    _write(tmp_path / "sweeps.jsonl", [OLD_START, {"sweep_id": "s1", "event": "end"}])
    _write(tmp_path / "capacity.jsonl", [OLD_ANSWER])
    (_, run), *_ = load_records([tmp_path])
    assert run.workload == "sleep" and run.extra == {"format": FORMAT}
    start, *_ = load_sweeps([tmp_path])
    assert start["workload"] == "sleep" and start["format"] == FORMAT
    answer, *_ = load_capacity([tmp_path])
    assert answer["workload"] == "sleep" and answer["label"] == "box"
    raw = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert raw == [OLD_RUN], "reading never writes"


def test_a_format_2_rows_buffer_is_read_as_its_workloads_parameter(tmp_path):
    """Format 2 kept a connection's read buffer at the top level of runs and start records
    (null for other workloads); format 3 keeps it under params, as every parameter."""
    conn = {**OLD_RUN, "format": 2, "workload": "connections", "buffer": 2048, "params": None}
    sleep = {**OLD_RUN, "format": 2, "workload": "sleep", "buffer": None, "params": None}
    start = {**OLD_START, "format": 2, "workload": "connections", "buffer": 2048}
    _write(tmp_path / "runs.jsonl", [conn, sleep])
    _write(tmp_path / "sweeps.jsonl", [start])
    (_, c), (_, s) = load_records([tmp_path])
    assert (c.params, s.params) == ({"buffer": 2048}, None)
    assert "buffer" not in c.to_json() and "buffer" not in s.to_json() and not s.extra.keys() - {"format"}
    (got,) = load_sweeps([tmp_path])
    assert got["params"] == {"buffer": 2048} and "buffer" not in got
    both = upgrade("run", {**conn, "params": {"other": 1}})
    assert both["params"] == {"buffer": 2048, "other": 1} and "buffer" not in both


def test_each_step_leaves_what_it_does_not_change_and_an_end_record_gets_no_workload():
    assert upgrade("run", {**OLD_RUN, "workload": "connections"})["workload"] == "connections"
    assert "workload" not in upgrade("sweep", {"sweep_id": "s1", "event": "end"})
    current = upgrade("capacity", OLD_ANSWER)
    assert upgrade("capacity", current) == current
    with pytest.raises(ValueError, match="no records of kind"):
        upgrade("timeline", {})


def test_a_record_of_a_newer_format_is_refused_naming_file_and_line(tmp_path):
    _write(tmp_path / "runs.jsonl", [OLD_RUN, {**OLD_RUN, "format": FORMAT + 1}])
    with pytest.raises(ResultsError) as e:
        read_jsonl(tmp_path / "runs.jsonl")
    assert str(e.value) == (
        f"{tmp_path / 'runs.jsonl'}:2: written in format {FORMAT + 1} by a newer memrun "
        f"(this one reads up to {FORMAT}): upgrade memrun"
    )


def test_every_writer_stamps_the_current_format(tmp_path):
    out = ResultsDir(tmp_path)
    out.add_sweep(OLD_START)
    out.add_run(RunRecord("go", 1, "valid", run_id="r1", result=result()))
    out.add_run({**OLD_RUN, "run_id": "r2"})  # a row merged from an old directory
    out.add_capacity(OLD_ANSWER)
    for name in ("sweeps.jsonl", "runs.jsonl", "capacity.jsonl"):
        lines = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
        assert all(row["format"] == FORMAT for row in lines), name
