"""The version axis through the real CLI (runner.versions, runner.cli.versioning, runner.cli.bisecting):
real builds and runs of a fake library whose versions cost a known amount per task."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "versioned"
KIB = 1024


def memrun(*args: str, tmp_path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full = {
        **os.environ,
        "MEMRUN_TASKS": str(FIXTURE),
        "MEMRUN_BUILD": str(tmp_path / "build"),
        **(env or {}),
    }
    full.pop("CI", None)
    return subprocess.run(
        [sys.executable, "-m", "runner", *args],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )


def rows(out: Path) -> list[dict]:
    path = out / "runs.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def files(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under folder: content hash and modification time (ns)."""
    return {
        str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def per_task(got: list[dict], variant: str, n: int) -> float:
    at = {r["n"]: r["peak_rss"] for r in got if r["variant"] == variant and r["verdict"] == "valid"}
    return (at[n] - at[1]) / n


@pytest.mark.serial
@pytest.mark.unbuilt
def test_two_versions_of_known_cost_are_told_apart(tmp_path):
    out = tmp_path / "res"
    p = memrun(
        "sweep", "--version", "fakelib=1.0.0,2.0.0", "--n", "1,4000", "--sleep", "0.3", "--out", str(out),
        tmp_path=tmp_path,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    got = rows(out)
    assert {r["variant"] for r in got} == {"fakelib@1.0.0", "fakelib@2.0.0"}
    assert all(r["version_of"] == "fakelib" for r in got)
    assert {r["variant"]: r["chosen_version"] for r in got}["fakelib@2.0.0"] == {"fakelib": "2.0.0"}
    assert {r["versions"]["fakelib"] for r in got if r["variant"] == "fakelib@2.0.0"} == {"2.0.0"}
    old, new = per_task(got, "fakelib@1.0.0", 4000), per_task(got, "fakelib@2.0.0", 4000)
    assert abs(old - 2 * KIB) < 0.25 * KIB and abs(new - 6 * KIB) < 0.25 * KIB
    table = memrun("report", str(out), tmp_path=tmp_path).stdout
    lines = [line for line in table.splitlines() if line.startswith("| fakelib@") and " MB**" in line]
    assert [line.split(" |")[0] for line in lines] == ["| fakelib@1.0.0", "| fakelib@2.0.0"]  # never pooled
    shown = [float(re.search(r"([\d.]+) KiB/task", line).group(1)) for line in lines]
    assert abs(shown[0] - 2) < 0.25 and abs(shown[1] - 6) < 0.25  # each row its own version's cost


def test_a_missing_version_is_one_line_and_exit_2(tmp_path):
    out = tmp_path / "res"
    p = memrun("sweep", "--version", "fakelib=1.4.5", "--n", "1", "--out", str(out), tmp_path=tmp_path)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "fakelib 1.4.5 is not in the registry" in p.stderr
    assert "nearest: 1.3.0, 1.4.0, 1.5.0" in p.stderr and not (out / "runs.jsonl").exists()
    assert not (tmp_path / "build").exists()  # nothing installed, nothing built
    p = memrun("bisect", "fakelib", "fakelib", "1.0.0..1.9.0", "--n", "100", tmp_path=tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "1.9.0 is not in the registry" in p.stderr


def test_an_install_that_leaves_another_version_is_a_row_not_a_fallback(tmp_path):
    out = tmp_path / "res"
    p = memrun(
        "sweep", "--version", "fakelib=1.3.0", "--n", "1", "--sleep", "0.3", "--out", str(out),
        tmp_path=tmp_path, env={"FAKELIB_BROKEN": "1"},
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    (row,) = rows(out)
    assert row["variant"] == "fakelib@1.3.0" and row["verdict"] != "valid" and row["peak_rss"] is None
    assert "fakelib reports 0.9.0, not the chosen 1.3.0" in row["reason"]


def test_version_builds_never_overwrite_the_default_build(tmp_path):
    out = tmp_path / "res"
    tasks_before = files(FIXTURE)
    # auto from 2 s: the subject is the builds; a parallel neighbour (a TCG guest beside) made 4,000
    # fake tasks miss a 0.3-s sleep, and once (2026-11-28) one task a 2-s one, and an invalid row
    # has no figure to pool: a run past its sleep is run again longer
    p = memrun("sweep", "--n", "1,4000", "--sleep", "auto:2", "--out", str(out), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    default = tmp_path / "build" / "fakelib"
    built = files(default)
    assert (default / "cost.txt").read_text() == "1\n"
    p = memrun(
        "sweep", "-r", "fakelib", "--version", "fakelib=installed,1.0.0,2.0.0", "--n", "1,4000",
        "--sleep", "auto:2", "--out", str(out), tmp_path=tmp_path,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "[build 1/3] fakelib (fakelib): up to date" in p.stderr  # the default is not rebuilt
    assert files(default) == built and files(FIXTURE) == tasks_before  # untouched, to the nanosecond
    versions = tmp_path / "build" / "versions" / "fakelib"
    assert (versions / "fakelib@1.0.0" / "cost.txt").read_text() == "2\n"
    assert (versions / "fakelib@2.0.0" / "cost.txt").read_text() == "6\n"
    got = rows(out)
    assert abs(per_task(got, "fakelib", 4000) - 1 * KIB) < 0.25 * KIB  # both default sweeps pooled
    assert abs(per_task(got, "fakelib@2.0.0", 4000) - 6 * KIB) < 0.25 * KIB


@pytest.mark.serial
@pytest.mark.unbuilt
def test_bisect_finds_the_changed_version_of_a_fake_series_within_the_build_bound(tmp_path):
    out = tmp_path / "res"
    # auto: 4,000 tasks of the fake once took 0.3 s to be `ready` (2026-11-28), past a 0.3-s sleep
    p = memrun(
        "bisect", "fakelib", "fakelib", "1.0.0..1.8.0", "--n", "4000", "--sleep", "auto:0.3",
        "--out", str(out), tmp_path=tmp_path,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "first changed: fakelib 1.5.0" in p.stdout, p.stdout
    bound = math.ceil(math.log2(9)) + 2
    probed = sorted(d.name for d in (tmp_path / "build" / "versions" / "fakelib").iterdir())
    assert len(probed) <= bound and {"fakelib@1.4.0", "fakelib@1.5.0"} <= set(probed)  # only what it probed
    assert f"bound ⌈log2 9⌉ + 2 = {bound}" in p.stdout
    variants = {r["variant"] for r in rows(out)}
    assert variants == {f"fakelib@{d.split('@')[1]}" for d in probed}  # every probe is stored


def test_doctor_names_the_version_axis_of_a_variant(tmp_path):
    p = memrun("doctor", "fakelib", tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "versions: --version fakelib=V, the fake library" in p.stdout
