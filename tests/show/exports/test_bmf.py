"""`report --format bmf`: the Bencher Metric Format, checked against its published shape."""

from __future__ import annotations

import json
import numbers

from runner.results import load_sweeps
from runner.results.summary import load_runs
from runner.show.exports import bmf
from tests.support.cli import show
from tests.support.crafted import write_results


def check_bmf(doc: object) -> None:
    """The shape bencher.dev documents: {benchmark: {measure: {value, lower_value?, upper_value?}}},
    every value a number; lower <= value <= upper where given."""
    assert isinstance(doc, dict) and doc
    for benchmark, measures in doc.items():
        assert isinstance(benchmark, str) and benchmark
        assert isinstance(measures, dict) and measures
        for slug, metric in measures.items():
            assert isinstance(slug, str) and slug == slug.lower() and " " not in slug
            assert isinstance(metric, dict) and "value" in metric
            assert set(metric) <= {"value", "lower_value", "upper_value"}
            assert all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in metric.values())
            assert metric.get("lower_value", metric["value"]) <= metric["value"]
            assert metric["value"] <= metric.get("upper_value", metric["value"])


def test_median_min_max_per_variant_n_and_metric(tmp_path):
    d = write_results(
        tmp_path / "r", "vm", {("go", 1): [2.2, 2.4, 2.3], ("go", 10_000): [30.0], ("node", 1): [None]}
    )
    doc = bmf.document(load_runs([d]), load_sweeps([d]))
    check_bmf(doc)
    assert set(doc) == {"go/N=1", "go/N=10000"}  # node has no valid run: no number, no entry
    assert doc["go/N=1"]["peak-rss"] == {"value": 2.3e6, "lower_value": 2.2e6, "upper_value": 2.4e6}
    assert doc["go/N=1"]["cgroup-peak"]["value"] == int(2.3 * 1.5e6)  # as crafted.py stores it
    assert set(doc["go/N=1"]) == {"peak-rss", "cgroup-peak", "sampled-peak-rss"}


def test_several_labels_are_never_pooled_and_the_cli_writes_it(tmp_path):
    a = write_results(tmp_path / "a", "laptop", {("go", 1): [2.0]})
    b = write_results(tmp_path / "b", "vm", {("go", 1): [3.0]})
    p = show("report", str(a), str(b), "--format", "bmf", tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    check_bmf(doc)
    assert (
        doc["laptop/go/N=1"]["peak-rss"]["value"] == 2.0e6 and doc["vm/go/N=1"]["peak-rss"]["value"] == 3.0e6
    )
