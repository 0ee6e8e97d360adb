"""scripts/suite_runs.py: the record of the test command's runs; `memrun derive suite-runs`: the
table of them in docs/development.md, which must be what the committed record gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from runner.derive import suite_runs

ROOT = Path(__file__).resolve().parents[1]
MARKER = "<!-- derived: memrun derive suite-runs docs/suite-runs.jsonl -->"


def test_the_development_pages_table_is_the_records():
    page = (ROOT / "docs" / "development.md").read_text()
    assert MARKER in page
    assert suite_runs.table(suite_runs.load(ROOT / "docs" / "suite-runs.jsonl")) in page, (
        "docs/development.md's table of runs is stale: run memrun derive"
    )
    assert "<!-- suite-runs" not in (ROOT / "README.md").read_text()  # one block engine, not two


def _derive(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    argv = [sys.executable, "-m", "runner", "derive", *args]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)


def test_a_table_that_drifts_from_its_record_is_named_and_made_again(tmp_path):
    (tmp_path / "runs.jsonl").write_text(
        json.dumps({"commit": "abc1234", "date": "2026-11-28", "wall_s": 900, "passed": 3}) + "\n"
    )
    (tmp_path / "derived.toml").write_text('pages = ["docs/*.md"]\n')
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "development.md"
    page.write_text("x\n\n<!-- derived: memrun derive suite-runs runs.jsonl -->\n<!-- /derived -->\n\ny\n")
    stale = _derive(tmp_path, "--check")
    assert stale.returncode == 1 and "stale: docs/development.md: line 3" in stale.stderr, stale.stderr
    assert _derive(tmp_path).returncode == 0
    assert _derive(tmp_path, "--check").returncode == 0
    assert "| abc1234 | 2026-11-28 |  |  | 15 min 0 s |  | 3 passed |" in page.read_text()
    page.write_text(page.read_text().replace("15 min 0 s", "14 min 0 s"))  # typed over
    assert _derive(tmp_path, "--check").returncode == 1
    missing = _derive(tmp_path, "suite-runs", "gone.jsonl")
    assert missing.returncode == 2 and "gone.jsonl" in missing.stderr and "Traceback" not in missing.stderr


def _junit(path: Path, cases: str) -> None:
    path.write_text(
        f'<?xml version="1.0"?><testsuites><testsuite name="pytest">{cases}</testsuite></testsuites>'
    )


def test_a_run_is_recorded_from_its_junit_files_and_shown_beside_its_quick_start(tmp_path):
    prefix = tmp_path / "junit"
    _junit(
        tmp_path / "junit-serial.xml",
        '<testcase classname="tests.a" name="t1"/>'
        '<testcase classname="tests.a" name="t2"><failure/></testcase>',
    )
    _junit(tmp_path / "junit-guest.xml", '<testcase classname="tests.b" name="t3"><skipped/></testcase>')
    record = tmp_path / "runs.jsonl"
    script = ROOT / "scripts" / "suite_runs.py"
    quick = [sys.executable, str(script), "record", str(record), "--wall", "700", "--where", "purged"]
    subprocess.run(quick, check=True, capture_output=True)
    test = [sys.executable, str(script), "record", str(record), "--junit", str(prefix), "--wall", "899.6"]
    test += ["--group", "serial=500", "--group", "builds=90", "--where", "purged"]
    subprocess.run(test, check=True, capture_output=True)
    first, second = suite_runs.load(record)
    assert first["what"] == "quickstart" and first["wall_s"] == 700 and "passed" not in first
    assert (second["passed"], second["failed"], second["skipped"]) == (1, 1, 1)
    assert second["failures"] == ["tests.a::t2"] and second["groups_s"] == {"serial": 500, "builds": 90}
    assert second["commit"] and second["wall_s"] == 900 and "transcribed" not in second
    rows = suite_runs.table([first, second]).splitlines()[2:]
    assert len(rows) == 1  # the quick start sits beside the run of the same commit after it
    assert (
        "| purged | 11 min 40 s | 15 min 0 s | builds 90 s, serial 500 s | 1 passed, 1 failed, 1 skipped |"
        in rows[0]
    )


def test_a_run_made_elsewhere_is_recorded_under_its_commit_and_a_wrong_call_is_refused(tmp_path):
    """CI's run is recorded from its JUnit files afterwards, under the commit it ran; a call
    without --wall or with an unknown group writes nothing and says why."""
    record = tmp_path / "runs.jsonl"
    script = [sys.executable, str(ROOT / "scripts" / "suite_runs.py")]
    ci = [*script, "record", str(record), "--wall", "1046", "--commit", "6ccda44", "--where", "CI"]
    subprocess.run(ci, check=True, capture_output=True)
    assert suite_runs.load(record)[0]["commit"] == "6ccda44"
    for bad in (["--where", "CI"], ["--wall", "9", "--group", "lunch=9"]):
        p = subprocess.run([*script, "record", str(record), *bad], capture_output=True, text=True)
        assert p.returncode != 0 and "Traceback" not in p.stderr, p.stderr
        assert ("--wall" in p.stderr) if "--wall" not in bad else ("lunch" in p.stderr)
    assert len(suite_runs.load(record)) == 1


def test_the_readme_line_is_the_newest_purged_run_after_its_quick_start():
    from runner.derive.suite_runs import latest_purged

    rows = [
        {"what": "quickstart", "commit": "a1", "wall_s": 1000},
        {"commit": "a1", "date": "d1", "where": "purged fresh clone, after the quick start", "wall_s": 800},
        {"commit": "b2", "date": "d2", "where": "packages present, no build/", "wall_s": 900},
        {"commit": "c3", "date": "d3", "where": "purged fresh clone, no quick start", "wall_s": 950},
        {
            "commit": "d4",
            "date": "d4",
            "where": "purged fresh clone, after the quick start",
            "wall_s": 700,
            "quickstart_s": 900,
            "failed": 3,
        },  # a failed run's time is never the README's
    ]
    assert latest_purged(rows) == "16 min 40 s and 13 min 20 s (a1, d1)"
    with pytest.raises(ValueError, match="no run after the quick start"):
        latest_purged(rows[2:])
