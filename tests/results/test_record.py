"""runner.results.record: the typed run record, written by one method and read back by one."""

from __future__ import annotations

import json
from pathlib import Path

from runner.results import RunRecord
from runner.results.summary import load_runs

# The first reference sweep (10 variants x 3 repeats), frozen: rows written before memory_cap, kind
# and label existed. plots/data now holds newer results; the current ones are checked below too.
STORED = Path(__file__).resolve().parents[1] / "fixtures" / "reference-10" / "runs.jsonl"
CURRENT = Path(__file__).resolve().parents[2] / "plots" / "data" / "runs.jsonl"


# Fields that memrun added after the committed rows were written: written back as these defaults.
NEWER = {
    "memory_cap": None,
    "kind": "sweep",
    "label": None,
    "env_override": {},
    "chosen_version": {},
    "version_of": None,
    "overlap_by_timing": None,
    "hold_ratio": None,
    "program": None,
    "books": None,
    "proof": None,
}
# ... and after the current ones: every row before workloads is a sleep row, with no client
WORKLOAD = {"workload": "sleep", "client": None, "params": None}
NEWER_MEASURED = {
    "ready_deadline_s": None,
    "timeout_extended_s": None,
    "cgroup_peak_source": None,
    "stopped_reason": None,
    "socket_accounting": None,
    "cgroup_breakdown_held": {},
    "stopped_by": None,
    "hold_split": None,
}  # in rows of runs that were measured


def test_every_committed_row_reads_back_to_the_same_json():
    rows = [json.loads(line) for line in STORED.read_text().splitlines()]
    assert len(rows) > 100
    for row in rows:
        out = RunRecord.from_json(row).to_json()
        assert {k: out[k] for k in row} == row
        assert [k for k in out if k in row] == list(row)  # same order of the stored keys
        added = NEWER | WORKLOAD | (NEWER_MEASURED if row.get("wall_s") is not None else {})
        assert {k: out[k] for k in set(out) - set(row)} == added
        assert RunRecord.from_json(out).to_json() == out


def test_every_current_row_reads_back_to_the_same_json():
    rows = [json.loads(line) for line in CURRENT.read_text().splitlines()]
    assert rows
    for row in rows:
        out = RunRecord.from_json(row).to_json()
        assert {k: out[k] for k in row} == row
        newer = {k: out[k] for k in set(out) - set(row)}  # rows written before a field existed
        later = {*NEWER_MEASURED, *WORKLOAD, "env_override", "chosen_version", "version_of"}
        later |= {"overlap_by_timing", "hold_ratio", "program", "books", "proof"}
        assert set(newer) <= later, newer
        assert newer.pop("workload", "sleep") == "sleep" and not any(newer.values()), newer


def test_measured_and_unmeasured_records():
    rows = [json.loads(line) for line in STORED.read_text().splitlines()]
    measured = RunRecord.from_json(next(r for r in rows if r["verdict"] == "valid"))
    assert measured.result is not None and measured.result.peak_rss == measured.get("peak_rss") > 0
    failed = RunRecord(variant="x", n=10, verdict="failed", code="build-failed", reason="no cc")
    data = failed.to_json()
    assert data["peak_rss"] is None and data["wall_s"] is None and RunRecord.from_json(data) == failed


def test_a_record_from_an_older_or_newer_memrun_loads(tmp_path):
    old = {"variant": "go", "n": 10, "verdict": "valid", "peak_rss": 5, "ready_s": 0.1, "sleep_s": 1.0}
    newer = {**old, "n": 20, "some_future_field": {"a": 1}}
    (tmp_path / "runs.jsonl").write_text(json.dumps(old) + "\n" + json.dumps(newer) + "\n")
    runs = load_runs([tmp_path])
    assert list(runs["n"]) == [10, 20] and runs["some_future_field"].iloc[1] == {"a": 1}
    assert RunRecord.from_json(newer).to_json()["some_future_field"] == {"a": 1}


def test_a_chosen_version_is_stored_and_read_back():
    record = RunRecord(
        variant="go@1.18.10", n=1, verdict="failed", chosen_version={"go": "1.18.10"}, version_of="go"
    )
    data = record.to_json()
    assert (data["chosen_version"], data["version_of"]) == ({"go": "1.18.10"}, "go")
    assert RunRecord.from_json(data) == record
    older = RunRecord.from_json({"variant": "go", "n": 1, "verdict": "valid", "peak_rss": 5})
    assert older.version_of is None and older.chosen_version == {}
