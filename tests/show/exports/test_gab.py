"""`report --format gab`: github-action-benchmark's customSmallerIsBetter input, checked against
the shape its README documents."""

from __future__ import annotations

import json
import numbers

from runner.results import load_sweeps
from runner.results.summary import load_runs
from runner.show.exports import gab
from tests.support.cli import show
from tests.support.crafted import write_results


def check_gab(doc: object) -> None:
    """A list of {name, unit, value, range?, extra?}: name and unit strings, value a number,
    range and extra strings (the action only displays them)."""
    assert isinstance(doc, list) and doc
    for entry in doc:
        assert isinstance(entry, dict)
        assert {"name", "unit", "value"} <= set(entry) <= {"name", "unit", "value", "range", "extra"}
        assert isinstance(entry["name"], str) and entry["name"] and isinstance(entry["unit"], str)
        assert isinstance(entry["value"], numbers.Real) and not isinstance(entry["value"], bool)
        assert all(isinstance(entry[k], str) for k in ("range", "extra") if k in entry)
    names = [e["name"] for e in doc]
    assert len(names) == len(set(names))  # the action keys its charts by name


def test_one_entry_per_variant_n_and_metric(tmp_path):
    d = write_results(tmp_path / "r", "vm", {("go", 1): [2.2, 2.4, 2.3], ("node", 1): [None]})
    doc = gab.entries(load_runs([d]), load_sweeps([d]))
    check_gab(doc)
    assert [e["name"] for e in doc] == ["go/N=1/peak_rss", "go/N=1/cgroup_peak", "go/N=1/sampled_peak_rss"]
    assert doc[0] == {
        "name": "go/N=1/peak_rss",
        "unit": "MB",
        "value": 2.3,
        "range": "± 0.100",
        "extra": "min 2.200 MB, max 2.400 MB over 3 valid runs; label vm",
    }


def test_the_cli_writes_it_to_a_file(tmp_path):
    d = write_results(tmp_path / "r", "vm", {("go", 1): [2.2]})
    out = tmp_path / "gab.json"
    p = show("report", str(d), "--format", "gab", "-o", str(out), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    check_gab(json.loads(out.read_text()))
