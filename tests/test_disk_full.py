"""A results disk that fills mid-sweep, for real: --out on a small tmpfs (needs root to mount).

memrun stops with one line naming the disk, exit status 1; every finished run is intact (the
append that failed was cut back); once space is freed, --resume runs the rest.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run
from tests.support.process import require

# 8 cells with a timeline sample every 5 ms: several KiB per run (1 KiB of run row, the rest
# timeline), far more than the space left, and a first run that always fits.
ARGS = ("--n", "1,2,3,4", "--repeat", "2", "--interval", "5")
CELLS = 8
STOPPED = re.compile(
    r"Error: sweep stopped: no space left on (?P<mount>\S+) \(tmpfs, (?P<free>[\d.,]+ (B|KiB)) free\) "
    r"writing (?P<file>\S+); the (?P<kept>\d+) finished runs? (is|are) kept; "
    r"free space, then run the same command with --resume"
)


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 16 KiB tmpfs (4 pages), unmounted afterwards whatever happens."""
    yield from _tmpfs(tmp_path, "16k")


@pytest.fixture
def roomier_disk(tmp_path: Path):
    """A 64 KiB tmpfs: a full disk for results whose rows are larger than a page allows in 16 KiB
    (a run row is 1.4 KB now that it records workload, versions and the load client)."""
    yield from _tmpfs(tmp_path, "64k")


def _tmpfs(tmp_path: Path, size: str):  # type: ignore[no-untyped-def]
    require(os.geteuid() == 0, "mounting a tmpfs needs root")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    p = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)], capture_output=True, text=True
    )
    require(p.returncode == 0, f"cannot mount a tmpfs here: {p.stderr.strip()}")
    try:
        yield mnt
    finally:
        if subprocess.run(["umount", str(mnt)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mnt)], check=False)


def _lines(path: Path) -> list[dict]:
    text = path.read_text()
    assert text == "" or text.endswith("\n"), f"{path} ends in a torn line"
    return [json.loads(line) for line in text.splitlines()]


def _grow(disk: Path) -> None:
    subprocess.run(["mount", "-o", "remount,size=256k", str(disk)], check=True)


# Two ways the disk fills, and two ways space comes back. Here, the first fills timelines.jsonl
# (a 0.5 s sleep: the sweep's start record, 1 page of rows, timelines outgrow their 2 pages on the
# third run); the second fills runs.jsonl while a timeline was already in, which is taken back out
# (the disk grown to 96 KiB with 48 KiB of it a file the user deletes; 1 s sleeps: the whole sweep
# takes ~80 KiB, its timelines points carrying CPU time). The test holds whichever file the disk
# fills on.
@pytest.mark.serial  # how far the disk gets depends on how many samples the timelines took
@pytest.mark.unbuilt
@pytest.mark.parametrize(
    "sleep, filler_kib",
    [pytest.param("0.5", 0, id="remount-bigger"), pytest.param("1", 48, id="delete-a-file")],
)
def test_disk_full_mid_sweep_stops_in_one_line_and_resume_finishes(tmp_path, small_disk, sleep, filler_kib):
    filler = small_disk / "filler"
    if filler_kib:
        subprocess.run(["mount", "-o", "remount,size=96k", str(small_disk)], check=True)
        filler.write_bytes(b"\0" * filler_kib * 1024)
    out = small_disk / "res"
    args = ("sweep", *ARGS, "--sleep", sleep, "--out", str(out))
    p = run(*args, tmp_path=tmp_path)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    errors = [line for line in p.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and p.stderr.splitlines()[-1] == errors[0], p.stderr
    m = STOPPED.fullmatch(errors[0])
    assert m, errors[0]
    assert m["mount"] == str(small_disk)
    assert m["file"] in {str(out / name) for name in ("runs.jsonl", "timelines.jsonl", "sweeps.jsonl")}
    kept = _lines(out / "runs.jsonl")
    assert 0 < len(kept) < CELLS  # the disk filled mid-sweep
    assert int(m["kept"]) == len(kept)
    assert all(r["verdict"] == "valid" for r in kept)
    # no half-written run left behind: every timeline belongs to a stored run, and back
    timelines = _lines(out / "timelines.jsonl")
    assert [t["run_id"] for t in timelines] == [r["run_id"] for r in kept]
    _lines(out / "sweeps.jsonl")
    assert not list(out.glob("*.torn-*"))

    if filler_kib:
        filler.unlink()
    else:
        _grow(small_disk)
    p = run(*args, "--resume", tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert f"{len(kept)} cell(s) already" in p.stderr
    after = _lines(out / "runs.jsonl")
    assert after[: len(kept)] == kept
    assert sorted((r["n"], r["repeat"]) for r in after) == [(n, r) for n in range(1, 5) for r in (0, 1)]
    assert len(_lines(out / "timelines.jsonl")) == CELLS
    report = run("report", str(out), tmp_path=tmp_path)
    assert report.returncode == 0 and report.stderr == "", report.stderr


def test_a_torn_tail_on_a_full_disk_is_left_in_place_until_there_is_room(tmp_path, roomier_disk):
    """Moving torn bytes aside needs room for the side file: without it nothing is touched."""
    small_disk = roomier_disk
    out = small_disk / "res"
    args = ("sweep", "--n", "1,2", "--sleep", "0.2", "--out", str(out))
    assert run(*args, tmp_path=tmp_path).returncode == 0
    runs = out / "runs.jsonl"
    whole = runs.read_bytes()
    runs.write_bytes(whole[:-100])  # the second row, torn
    filler = small_disk / "filler"
    with open(filler, "wb", buffering=0) as f:  # fill every last byte
        try:
            while True:
                f.write(b"\0" * 1024)
        except OSError:
            pass
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    p = run(*args, "--resume", tmp_path=tmp_path)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert p.stderr.splitlines()[-1].startswith(
        f"Error: sweep stopped: no space left on {small_disk} (tmpfs, 0 B free) writing {runs}.torn-"
    )
    assert p.stderr.splitlines()[-1].endswith(
        "; no run had finished; free space, then run the same command with --resume"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    filler.unlink()
    p = run(*args, "--resume", tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "1 cell(s) already" in p.stderr
    (side,) = out.glob("runs.jsonl.torn-*")
    assert side.read_bytes() == whole[whole.rstrip(b"\n").rfind(b"\n") + 1 : -100]
    assert [r["n"] for r in _lines(runs)] == [1, 2]
