"""`report --format bmf`: the Bencher Metric Format, checked against its published shape."""

from __future__ import annotations

import json
import numbers

from runner.analysis.cells import cells
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
    (found,) = cells(load_runs([d]), load_sweeps([d])).values()
    doc = bmf.document(found)
    check_bmf(doc)
    # named by workload, variant and N, never by the machine; node has no valid run: no entry
    assert set(doc) == {"sleep/go/N=1", "sleep/go/N=10000"}
    go = doc["sleep/go/N=1"]
    assert go["peak-rss"] == {"value": 2.3e6, "lower_value": 2.2e6, "upper_value": 2.4e6}
    assert go["cgroup-peak"]["value"] == int(2.3 * 1.5e6)  # as crafted.py stores it
    assert set(go) == {"peak-rss", "cgroup-peak", "sampled-peak-rss"}


def test_several_labels_are_one_file_each_with_its_testbed_and_never_pooled(tmp_path):
    a = write_results(tmp_path / "a", "laptop", {("go", 1): [2.0]})
    b = write_results(tmp_path / "b", "vm [kernel 6.18.44-fc-v657]", {("go", 1): [3.0]})
    refused = show("report", str(a), str(b), "--format", "bmf", tmp_path=tmp_path)
    assert refused.returncode == 2 and "2 labels (laptop, vm [kernel 6.18.44-fc-v657])" in refused.stderr
    out = tmp_path / "bmf.json"
    p = show("report", str(a), str(b), "--format", "bmf", "-o", str(out), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    laptop, vm = tmp_path / "bmf.laptop.json", tmp_path / "bmf.vm-kernel-6-18-44-fc-v657.json"
    assert p.stdout.split() == [str(laptop), str(vm)]
    assert f"bencher run --testbed vm-kernel-6-18-44-fc-v657 --adapter json --file {vm}" in p.stderr
    for path, value in ((laptop, 2.0e6), (vm, 3.0e6)):
        doc = json.loads(path.read_text())
        check_bmf(doc)
        assert set(doc) == {"sleep/go/N=1"} and doc["sleep/go/N=1"]["peak-rss"]["value"] == value


def test_one_label_to_standard_output_says_its_testbed(tmp_path):
    d = write_results(tmp_path / "r", "vm", {("go", 1): [2.0]})
    p = show("report", str(d), "--format", "bmf", tmp_path=tmp_path)
    assert p.returncode == 0 and "bencher run --testbed vm --adapter json" in p.stderr, p.stderr
    check_bmf(json.loads(p.stdout))
