"""memrun merge: the shards of a real sweep of the fake program joined into the unsharded cell
set, never a run twice, and two machines under one label refused before anything is written."""

from __future__ import annotations

import json
import shutil

from tests.support.cli import rows, run

SWEEP = ("sweep", "--n", "1,10,100,1000", "--repeat", "2", "--sleep", "0.2", "--label", "box")


def _cells(out) -> list[tuple[str, int, int]]:  # type: ignore[no-untyped-def]
    return sorted((r["variant"], r["n"], r["repeat"]) for r in rows(out))


def test_shards_merged_are_the_unsharded_sweep_and_merging_again_adds_nothing(tmp_path):
    shards = []
    for i in (1, 2, 3):
        out = tmp_path / f"shard-{i}"
        p = run(*SWEEP, "--shard", f"{i}/3", "--out", str(out), tmp_path=tmp_path)
        assert p.returncode == 0, p.stderr
        shards.append(out)
    whole = tmp_path / "whole"
    p = run(*SWEEP, "--out", str(whole), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    counts = [len(rows(s)) for s in shards if (s / "runs.jsonl").exists()]
    assert sum(counts) == 8 and len(counts) >= 2, counts  # each cell in one shard

    merged = tmp_path / "all"
    p = run("merge", str(merged), *map(str, shards), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert _cells(merged) == _cells(whole)
    assert "8 runs" in p.stderr and "0 runs were there already" in p.stderr
    timelines = [json.loads(line)["run_id"] for line in (merged / "timelines.jsonl").read_text().splitlines()]
    assert sorted(timelines) == sorted(r["run_id"] for r in rows(merged))
    starts = [json.loads(line) for line in (merged / "sweeps.jsonl").read_text().splitlines()]
    assert sorted(s["shard"] for s in starts if s["event"] == "start") == ["1/3", "2/3", "3/3"][: len(counts)]

    again = run("merge", str(merged), *map(str, shards), tmp_path=tmp_path)
    assert again.returncode == 0 and "0 runs" in again.stderr and "8 runs were there already" in again.stderr
    assert len(rows(merged)) == 8
    shown = run("report", str(merged), tmp_path=tmp_path)  # one label: one column group, as ever
    assert shown.returncode == 0 and "| fake |" in shown.stdout and "labels" not in shown.stderr, shown.stderr


def test_two_machines_under_one_label_are_refused_and_nothing_is_written(tmp_path):
    one = tmp_path / "one"
    p = run("sweep", "--n", "1", "--sleep", "0.2", "--label", "box", "--out", str(one), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    other = tmp_path / "other"
    shutil.copytree(one, other)
    records = [json.loads(line) for line in (other / "sweeps.jsonl").read_text().splitlines()]
    for r in records:
        if r.get("event") == "start":
            r["sweep_id"] += "-x"
            r["fingerprint"] = {**r["fingerprint"], "kernel": "6.1.0-99-amd64"}
    (other / "sweeps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    runs = [
        {**json.loads(line), "run_id": "x" + json.loads(line)["run_id"]}
        for line in (other / "runs.jsonl").read_text().splitlines()
    ]
    (other / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))

    merged = tmp_path / "all"
    p = run("merge", str(merged), str(one), str(other), tmp_path=tmp_path)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "label 'box'" in p.stderr and "kernel" in p.stderr and "6.1.0-99-amd64" in p.stderr
    assert not (merged / "runs.jsonl").exists()
