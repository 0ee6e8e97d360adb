"""scripts/suite_runs.py: the record of the test command's runs, and the README's table of them,
which must be what the committed record gives."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("suite_runs", ROOT / "scripts" / "suite_runs.py")
assert _spec is not None and _spec.loader is not None
suite_runs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite_runs)


def test_the_readmes_table_is_the_records():
    assert suite_runs.stale(ROOT / "README.md") == []
    assert "<!-- suite-runs: docs/suite-runs.jsonl -->" in (ROOT / "README.md").read_text()


def test_a_table_that_drifts_from_its_record_is_named(tmp_path):
    record = tmp_path / "runs.jsonl"
    record.write_text(
        json.dumps({"commit": "abc1234", "date": "2026-11-28", "wall_s": 900, "passed": 3}) + "\n"
    )
    readme = tmp_path / "README.md"
    readme.write_text(f"x\n<!-- suite-runs: {record} -->\n<!-- /suite-runs -->\ny\n")
    assert suite_runs.stale(readme) == [f"README.md: the table of {record}"]
    suite_runs.write(readme)
    assert suite_runs.stale(readme) == []
    assert "| abc1234 | 2026-11-28 |  |  | 15 min 0 s |  | 3 passed |" in readme.read_text()
    readme.write_text(readme.read_text().replace("15 min 0 s", "14 min 0 s"))  # typed over
    assert suite_runs.stale(readme) != []


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
