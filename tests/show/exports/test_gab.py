"""`report --format gab`: github-action-benchmark's customSmallerIsBetter input, checked against
the shape its README documents."""

from __future__ import annotations

import json
import numbers

from runner.analysis.cells import cells
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
    (found,) = cells(load_runs([d]), load_sweeps([d])).values()
    doc = gab.entries(found)
    check_gab(doc)
    names = ["sleep/go/N=1/peak_rss", "sleep/go/N=1/cgroup_peak", "sleep/go/N=1/sampled_peak_rss"]
    assert [e["name"] for e in doc] == names
    assert doc[0] == {
        "name": "sleep/go/N=1/peak_rss",
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


def test_several_labels_are_one_file_each_named_alike(tmp_path):
    """One file per machine: the same names in each, so a kernel update keeps every series."""
    a = write_results(tmp_path / "a", "laptop", {("go", 1): [2.0]})
    b = write_results(tmp_path / "b", "vm", {("go", 1): [3.0]})
    out = tmp_path / "gab.json"
    p = show("report", str(a), str(b), "--format", "gab", "-o", str(out), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    docs = [json.loads((tmp_path / f"gab.{label}.json").read_text()) for label in ("laptop", "vm")]
    for doc in docs:
        check_gab(doc)
    assert [e["name"] for e in docs[0]] == [e["name"] for e in docs[1]]
    assert (docs[0][0]["value"], docs[1][0]["value"]) == (2.0, 3.0) and not out.exists()
