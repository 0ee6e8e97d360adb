"""runner.results.capacity: capacity.jsonl rows, old and new, read back as typed results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runner.results import ResultsError
from runner.results.capacity import CapacityResult
from runner.results.load import load_capacity

REFERENCE = Path(__file__).parents[2] / "plots" / "data"


def test_every_stored_reference_row_loads_with_defaults_for_the_new_fields():
    rows = [json.loads(line) for line in (REFERENCE / "capacity.jsonl").read_text().splitlines()]
    assert rows
    for row in rows:
        result = CapacityResult.from_json(row)
        assert (result.variant, result.budget_bytes, result.max_n) == (
            row["variant"],
            row["budget_bytes"],
            row["max_n"],
        )
        if "flaky_up_to" not in row:  # written before bands: a point, with no cost figure
            assert result.flaky_up_to is None and (result.flaky_passed, result.flaky_failed) == (0, 0)
            assert result.cost_s is None and result.cost_ratio is None and not result.flaky
        if "evidence_runs" not in row:  # written before answers were pooled from every run
            assert (result.evidence_runs, result.passed_at_max, result.stalled) == (0, 0, 0)
            # (scripts/migrate_results.py gave such a row its runs' program where git knew it)
            assert result.program == row.get("program") and result.why == "" and result.stall is None
        assert {k: v for k, v in result.to_json().items() if k in row} == row, "nothing read changes"


def test_a_row_from_before_confirmation_and_sleep_loads():
    old = {
        "variant": "go",
        "budget_bytes": 1 << 28,
        "max_n": 90_000,
        "first_failing_n": 91_800,
        "stopped_by": "out-of-memory",
        "stopped_reason": "out of memory",
        "probes": 6,
        "predicted_n": 88_000,
        "prediction": "from the sweep",
        "capacity_id": "x",
        "finished_at": "t",
        "probe_ids": [],
    }
    result = CapacityResult.from_json(old)
    assert result.sleep_s is None and not result.confirmed and not result.noisy
    assert result.peak_bytes is None, "the peak at max_n was not stored then"


def test_a_band_round_trips_and_an_unknown_field_is_kept():
    band = CapacityResult(
        "java-virtual", 1 << 28, 74_617, 75_474, noisy=True, flaky_up_to=120_767, flaky_passed=3,
        flaky_failed=10, cost_s=40.0, floor_s=16.0,
    )  # fmt: skip
    row = {**band.to_json(), "from_the_future": 1}
    back = CapacityResult.from_json(row)
    assert back.to_json() == row and back.flaky and back.cost_ratio == 2.5


def test_a_row_without_its_variant_is_an_error_naming_the_line(tmp_path):
    (tmp_path / "runs.jsonl").write_text("")
    (tmp_path / "capacity.jsonl").write_text('{"budget_bytes": 1, "max_n": 1}\n')
    with pytest.raises(ResultsError, match=r"capacity.jsonl:1: .*lacks variant"):
        load_capacity([tmp_path])


def test_a_row_without_a_label_takes_its_searchs_and_a_new_row_keeps_its_own(tmp_path):
    """Rows written before capacity rows kept their label get the one their search's start record
    gives; a guest's row (LABEL@RELEASE) keeps its own."""
    (tmp_path / "runs.jsonl").write_text("")
    sweeps = [
        {"sweep_id": "s1", "event": "start", "kind": "capacity", "label": "box"},
        {"sweep_id": "s1", "event": "end"},
    ]
    (tmp_path / "sweeps.jsonl").write_text("".join(json.dumps(s) + "\n" for s in sweeps))
    old = {"variant": "go", "budget_bytes": 1 << 28, "max_n": 9, "capacity_id": "s1"}
    guest = {**old, "capacity_id": "s2", "label": "box@6.12.117+deb12-amd64"}
    lost = {**old, "capacity_id": "s3"}  # its search's record is gone: no label to give
    (tmp_path / "capacity.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (old, guest, lost)))
    labels = [r["label"] for r in load_capacity([tmp_path])]
    assert labels == ["box", "box@6.12.117+deb12-amd64", None]
