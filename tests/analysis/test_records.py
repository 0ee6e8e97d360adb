"""runner.analysis.records: the report's tidy record per cell carries its program's proof kind."""

from __future__ import annotations

import json

from runner.analysis.records import records
from runner.results.summary import load_runs
from tests.support.crafted import write_results


def test_a_cell_says_the_kind_of_its_programs_ready_proof(tmp_path):
    d = write_results(tmp_path / "r", "box", {("go", 1000): [3.0, 3.1], ("node", 1000): [40.0]})
    runs = tmp_path / "r" / "runs.jsonl"
    rows = [json.loads(line) for line in runs.read_text().splitlines()]
    for row in rows:
        if row["variant"] == "go":
            row["proof"] = "counter"
    runs.write_text("".join(json.dumps(row) + "\n" for row in rows))
    got = {r["variant"]: r for r in records(load_runs([d]))}
    assert got["go"]["proof"] == "counter"
    assert got["node"]["proof"] is None  # rows stored before runs recorded it
