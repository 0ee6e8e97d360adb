"""Workloads in stored results: every row has one, old rows are sleep rows, no view mixes two."""

from __future__ import annotations

import json

import pytest

from runner.results import RunRecord, load_sweeps, workloads
from runner.results.summary import load_runs, summarize
from runner.workload import get
from tests.support.crafted import write_results


def test_rows_stored_before_workloads_load_as_sleep(tmp_path):
    old = write_results(tmp_path / "old", "box", {("go", 1): [2.0], ("go", 10_000): [30.0]})
    assert "workload" not in (old / "runs.jsonl").read_text()
    runs = load_runs([old])
    assert list(runs["workload"]) == ["sleep", "sleep"]
    record = RunRecord.from_json(json.loads((old / "runs.jsonl").read_text().splitlines()[0]))
    assert record.workload == "sleep" and record.client is None and record.params is None
    assert [workloads.of(s) for s in load_sweeps([old])] == ["sleep"]


def test_a_record_keeps_its_workload_parameters_and_client():
    client = {"summary": {"connected": 10, "dropped": 0}, "cgroup_peak": 123}
    params = {"buffer": 2048}
    row = RunRecord("go", 10, "valid", workload="connections", params=params, client=client).to_json()
    back = RunRecord.from_json(row)
    assert (back.workload, back.params, back.client) == ("connections", {"buffer": 2048}, client)
    assert "buffer" not in row  # a parameter, under params only
    assert RunRecord("go", 10, "valid").to_json()["workload"] == "sleep"


def test_select_keeps_one_workload_and_only_refuses_two(tmp_path):
    both = tmp_path / "both"
    write_results(both, "box", {("go", 1): [2.0], ("go", 10_000): [30.0]})
    write_results(
        both, "box", {("go", 1): [3.0], ("go", 10_000): [90.0]}, sweep_id="conn", workload="connections"
    )
    runs, sweeps = load_runs([both]), load_sweeps([both])
    with pytest.raises(ValueError, match="2 workloads"):
        summarize(runs)
    sleep, sleep_sweeps = workloads.select(runs, sweeps, get("sleep"))
    conn, conn_sweeps = workloads.select(runs, sweeps, get("connections"))
    assert list(summarize(sleep)["median"]) == [2e6, 30e6]
    assert list(summarize(conn)["median"]) == [3e6, 90e6]
    assert [s["sweep_id"] for s in sleep_sweeps] == ["sweep-box"]
    assert [s["sweep_id"] for s in conn_sweeps] == ["conn"]
    assert workloads.only(conn) is get("connections")  # the stored name, resolved


def test_kernel_part_and_client_columns(tmp_path):
    d = write_results(
        tmp_path / "c",
        "box",
        {("go", 1): [3.0], ("go", 10_000): [90.0]},
        workload="connections",
        kernel={("go", 1): 0.5, ("go", 10_000): 40.5},
    )
    runs = load_runs([d])
    assert list(runs["cgroup_kernel"]) == [0.5e6, 40.5e6]
    assert list(runs["client_peak"]) == [4e3 + 1e6, 4e7 + 1e6]
    assert runs["client_cpu_s"].round(3).tolist() == [0.03, 0.03]
    assert list(runs["client_connect_s"]) == [0.25, 0.25]
    per = summarize(runs, "cgroup_kernel").set_index("n")["per_task"]
    assert per[10_000] == pytest.approx((40.5e6 - 0.5e6) / 10_000)


def test_a_stored_rows_workload_is_resolved_once_to_the_object():
    assert workloads.resolved({"workload": "connections"}) is get("connections")
    assert workloads.resolved({}) is get("sleep")  # a row from before workloads
    assert workloads.resolved({}).words.noun == "tasks"


def test_the_kernel_part_is_read_while_held_where_recorded(tmp_path):
    # Deno at 10k: the cgroup's highest total came as the client closed the connections, with
    # 21.0 MB of kernel memory left, against 40.5 MB while all were held.
    d = write_results(
        tmp_path / "c",
        "box",
        {("deno", 1): [44.0], ("deno", 10_000): [128.5]},
        workload="connections",
        kernel={("deno", 1): 0.9, ("deno", 10_000): 21.0},
    )
    rows = [json.loads(line) for line in (d / "runs.jsonl").read_text().splitlines()]
    rows[1]["cgroup_breakdown_held"] = {"kernel": 40_500_000, "sock": 0}
    (d / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    runs = load_runs([d])
    assert list(runs["cgroup_kernel"]) == [0.9e6, 40.5e6]
