"""runner.results.labels: one label, one machine. Labels whose sweeps span machines are found and
split; a sweep or a capacity search refuses a label another machine holds in its directory."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from runner import fingerprint
from runner.results.labels import LabelTaken, apply, check_free, sessions, spanning, split
from runner.results.migrate import FORMAT
from tests.support.cli import one_line_error, rows, run

BOX = {"cpu_model": "EPYC", "cpus": 2, "ram_bytes": 25 << 30, "kernel": "6.18.44-v669"}


def _start(sweep_id: str, label: str, **machine) -> dict:  # type: ignore[no-untyped-def]
    return {"sweep_id": sweep_id, "event": "start", "label": label, "started_at": sweep_id,
            "fingerprint": {**BOX, **machine}}  # fmt: skip


def test_a_label_over_two_kernel_builds_is_split_and_keeps_the_latest_machine():
    data = [_start("1", "box", kernel="6.18.44-v657"), _start("3", "box"), {"sweep_id": "1", "event": "end"}]
    guest = _start("4", "box@6.1.0-56-amd64", kernel="6.1.0-56-amd64")
    margin = [_start("2", "box", kernel="6.18.44-v782"), guest]
    found = sessions([(Path("data"), data), (Path("margin"), margin)])
    assert spanning(found) == {"box": 3}
    new = split(found)
    assert new == {(Path("data"), "1"): "box@6.18.44-v657", (Path("margin"), "2"): "box@6.18.44-v782"}

    runs = [{"sweep_id": "1", "label": "box"}, {"sweep_id": "3", "label": "box"}]
    capacity = [{"capacity_id": "1", "label": "box"}]
    mine = {sid: label for (where, sid), label in new.items() if where == Path("data")}
    assert apply(mine, runs, data, capacity) == 3
    assert [r["label"] for r in runs] == ["box@6.18.44-v657", "box"]
    assert data[0]["label"] == "box@6.18.44-v657" and capacity[0]["label"] == "box@6.18.44-v657"
    named = [replace(s, label=new.get((s.where, s.sweep_id), s.label)) for s in found]
    assert spanning(named) == {}


def test_two_machines_with_one_kernel_get_distinct_labels():
    starts = [_start("1", "box", cpus=4), _start("2", "box", cpus=8), _start("3", "box")]
    found = sessions([(Path("d"), starts)])
    assert sorted(split(found).values()) == ["box@6.18.44-v669", "box@6.18.44-v669~2"]


def test_check_free_refuses_a_label_another_machine_holds(tmp_path):
    (tmp_path / "sweeps.jsonl").write_text(json.dumps(_start("1", "box")) + "\n")
    check_free(tmp_path, "box", BOX)  # the same machine
    check_free(tmp_path, "laptop", {**BOX, "kernel": "other"})  # another label
    check_free(tmp_path / "new", "box", {**BOX, "kernel": "other"})  # nothing stored yet
    with pytest.raises(LabelTaken) as e:
        check_free(tmp_path, "box", {**BOX, "kernel": "6.18.44-v782"})
    assert str(e.value) == (
        f"label 'box' in {tmp_path} is another machine's (kernel 6.18.44-v669 there, 6.18.44-v782 here): "
        "its runs and these must not pool; sweep with --label NAME"
    )


def _taken(out: Path) -> None:
    here = fingerprint.collect()
    elsewhere = {**here, "kernel": here["kernel"] + "-elsewhere"}
    start = {"sweep_id": "20260101T000000-abcdef", "event": "start", "label": "box", "fingerprint": elsewhere}
    out.mkdir()
    (out / "sweeps.jsonl").write_text(json.dumps(start) + "\n")


def test_sweep_and_capacity_refuse_another_machines_label_before_running_anything(tmp_path):
    """Parallel: the refusals run nothing, and the one sweep that runs (the fake, in a memrun of
    its own under the test's own lock) is asserted to exit 0, never by a figure or a time."""
    out = tmp_path / "res"
    _taken(out)
    p = run("sweep", "--n", "1", "--sleep", "0.2", "--label", "box", "--out", str(out), tmp_path=tmp_path)
    one_line_error(p, "label 'box'", "another machine's", "--label NAME")
    assert rows(out) == [] and len((out / "sweeps.jsonl").read_text().splitlines()) == 1
    p = run("capacity", "--memory", "64MiB", "--label", "box", "--out", str(out), tmp_path=tmp_path)
    one_line_error(p, "label 'box'", "another machine's")
    assert rows(out) == [] and len((out / "sweeps.jsonl").read_text().splitlines()) == 1
    p = run("sweep", "--n", "1", "--sleep", "0.2", "--label", "other", "--out", str(out), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr


def test_no_committed_label_spans_two_machines_and_every_row_is_current():
    """plots/ as committed, every folder at any depth (plots/aa/strict as well as plots/data): one
    label, one machine, across every directory (a label pools runs wherever they are loaded
    together), and every record written in the current format."""
    root = Path(__file__).resolve().parents[2] / "plots"
    kept = ("runs.jsonl", "sweeps.jsonl", "capacity.jsonl")
    dirs = sorted({p.parent for name in kept for p in root.rglob(name)})
    assert len(dirs) >= 8 and root / "aa" / "strict" in dirs
    assert [d for d in dirs if not (d / "sweeps.jsonl").exists()] == [], "results without their sweeps"
    found = sessions(
        (d, [json.loads(line) for line in (d / "sweeps.jsonl").read_text().splitlines()]) for d in dirs
    )
    assert spanning(found) == {}
    for d in dirs:
        for name in kept:
            if (d / name).exists():
                lines = (d / name).read_text().splitlines()
                assert all(json.loads(line).get("format") == FORMAT for line in lines), d / name
        assert all(json.loads(line).get("workload") for line in (d / "runs.jsonl").read_text().splitlines())
