"""Labels and version groups: which runs may share a median (runner.results.groups)."""

from __future__ import annotations

import socket

import pandas as pd

from runner.results import load_sweeps
from runner.results.groups import (
    UNLABELLED,
    fingerprint_tags,
    groups,
    identity_words,
    label_runs,
    pooling_note,
    version_changes,
    version_word,
    version_words,
)
from runner.results.summary import load_runs
from tests.support.cli import rows, run


def _sweep(tmp_path, *args):
    """A sweep of the fake task (N KiB for 0.2 s). It takes a lock of its own: the machine-wide one
    keeps real measurements apart, and this one is too small to disturb them."""
    env = {"MEMRUN_LOCK": str(tmp_path / "lock")}
    return run("sweep", "--sleep", "0.2", *args, tmp_path=tmp_path, env=env)


def test_sweep_stores_its_label_in_every_run_and_in_sweeps(tmp_path):
    out = tmp_path / "res"
    p = _sweep(tmp_path, "--n", "1,2", "--label", "laptop", "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert [r["label"] for r in rows(out)] == ["laptop", "laptop"]
    (meta,) = load_sweeps([out])
    assert meta["label"] == "laptop" and meta["host"] == socket.gethostname()


def test_sweep_label_defaults_to_the_host_name(tmp_path):
    out = tmp_path / "res"
    assert _sweep(tmp_path, "--n", "1", "--out", str(out)).returncode == 0
    assert rows(out)[0]["label"] == socket.gethostname()
    blank = _sweep(tmp_path, "--n", "1", "--label", " ", "--out", str(tmp_path / "b"))
    assert blank.returncode == 2 and "--label" in blank.stderr and not (tmp_path / "b").exists()


def _runs(*rows: dict) -> pd.DataFrame:
    return pd.DataFrame([{"variant": "go", "n": 1, "verdict": "valid", "peak_rss": 1e6, **r} for r in rows])


def test_old_rows_take_their_sweeps_label_else_host_else_unlabelled():
    runs = _runs(
        {"sweep_id": "a", "label": "mine"},
        {"sweep_id": "a"},  # written before labels: the sweep's label
        {"sweep_id": "b"},  # the sweep predates labels too: its host
        {"sweep_id": "c"},  # no sweep record at all
    )
    sweeps = [{"sweep_id": "a", "label": "cloud", "host": "vm1"}, {"sweep_id": "b", "host": "vm2"}]
    assert list(label_runs(runs, sweeps)["label"]) == ["mine", "cloud", "vm2", UNLABELLED]


def test_different_toolchain_versions_of_a_variant_are_split_within_a_label():
    old = {"go": "go version go1.22.0 linux/amd64", "build": "go-build"}
    new = {"go": "go version go1.26.8 linux/amd64", "build": "go-build"}
    runs = _runs(
        {"sweep_id": "a", "versions": old},
        {"sweep_id": "b", "versions": new},
        {"sweep_id": "a", "variant": "node", "versions": {"node": "v20.1.0"}},
        {"sweep_id": "b", "variant": "node", "versions": {"node": "v20.1.0"}},
    )
    sweeps = [{"sweep_id": "a", "host": "vm"}, {"sweep_id": "b", "host": "vm"}]
    labelled = label_runs(runs, sweeps)
    assert list(labelled["variant"]) == ["go [go 1.22.0]", "go [go 1.26.8]", "node", "node"]
    assert list(labelled["runtime"]) == ["go", "go", "node", "node"]
    (group,) = groups(runs, sweeps)
    assert pooling_note([group]) == "runs of different toolchain versions or settings are shown apart (go)."


def test_groups_follow_the_order_of_the_directories():
    runs = _runs({"sweep_id": "b"}, {"sweep_id": "a"}, {"sweep_id": "b", "n": 10})
    sweeps = [{"sweep_id": "a", "host": "laptop"}, {"sweep_id": "b", "host": "vm"}]
    found = groups(runs, sweeps)
    assert [g.label for g in found] == ["vm", "laptop"]
    assert list(found[0].runs["n"]) == [1, 10] and [s["sweep_id"] for s in found[0].sweeps] == ["b"]
    assert pooling_note(found).startswith("2 labels (vm, laptop), never pooled")
    assert pooling_note(found[:1]) == ""


def test_version_words():
    assert version_word("go version go1.26.8 linux/amd64") == "1.26.8"
    assert version_word('openjdk version "25.0.3" 2026-04-21 LTS') == "25.0.3"
    assert version_word("Microsoft.NETCore.App 8.0.4 [/usr/share/dotnet]") == "8.0.4"
    assert version_word("v20.20.2") == "20.20.2" and version_word("mcs") == "mcs"
    assert version_words(float("nan")) == {}
    before, after = version_words({"go": "go1.22.0", "build": "x"}), version_words({"go": "go1.26.8"})
    assert version_changes(before, after) == ["build x → —", "go 1.22.0 → 1.26.8"]


def test_committed_reference_results_are_one_kernel_build_per_label(tmp_path):
    """The committed reference data once put two kernel builds of this machine under its host
    name; scripts/migrate_results.py gave the older build's sessions a label of their own. So
    the groups are the stored labels themselves, none split further by kernel, and each one
    kernel build (runs at chosen versions, of another workload, capacity probes: all in their
    kernel's label; versions and workloads are kept apart by the tables, not by labels)."""
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "plots" / "data"
    runs, sweeps = load_runs([data]), load_sweeps([data])
    kernel = {s["sweep_id"]: s["kernel"] for s in sweeps if "kernel" in s}
    found = groups(runs, sweeps)
    assert sum(len(g.runs) for g in found) == len(runs)
    assert sorted(g.label for g in found) == sorted(set(runs["label"]))
    for g in found:
        assert len({kernel[i] for i in g.runs["sweep_id"]}) == 1, g.label


def test_settings_given_with_env_split_a_variant_and_name_themselves():
    runs = _runs({"sweep_id": "a"}, {"sweep_id": "b", "env_override": {"GOGC": "50"}})
    sweeps = [{"sweep_id": "a", "host": "vm"}, {"sweep_id": "b", "host": "vm"}]
    assert list(label_runs(runs, sweeps)["variant"]) == ["go [GOGC unset]", "go [GOGC=50]"]
    before = identity_words({"go": "go1.26.8"}, {})
    after = identity_words({"go": "go1.26.8"}, {"GOGC": "50"})
    assert version_changes(before, after) == ["GOGC unset → 50"]


def test_sweeps_of_one_label_on_differing_machines_are_never_pooled():
    thp = {"cpus": 2, "kernel": "6.1", "thp": "always"}
    sweeps = [
        {"sweep_id": "a", "host": "vm", "fingerprint": thp},
        {"sweep_id": "b", "host": "vm", "fingerprint": {**thp, "thp": "never"}},
        {"sweep_id": "c", "host": "vm", "cpus": 2, "kernel": "6.1"},  # older: no THP recorded
        {"sweep_id": "d", "host": "vm", "fingerprint": {**thp, "ram_bytes": 25_276_502_016}},
        {"sweep_id": "e", "host": "vm", "fingerprint": {**thp, "ram_bytes": 25_276_510_208}},  # 8 KiB more
    ]
    runs = _runs(*({"sweep_id": s["sweep_id"]} for s in sweeps))
    labels = list(label_runs(runs, sweeps)["label"])
    never, always = "vm [transparent huge pages never]", "vm [transparent huge pages always]"
    # c did not record THP, so it differs from neither and joins the first machine it matches;
    # MemTotal a few KiB apart is the same RAM
    assert labels == [always, never, always, always, always]
    assert [g.label for g in groups(runs, sweeps)] == [always, never]
    assert fingerprint_tags(sweeps[2:]) == {}
