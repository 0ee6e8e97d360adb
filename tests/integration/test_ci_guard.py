"""docs/compare.md "Guarding an upgrade in CI": its lines, run as a CI job would run them.

The GitHub Actions workflow itself cannot run here; its `memrun` lines are the docs page's, and
those run here: with the fake test program (fast: a candidate holding 8 MiB more fails the job, an
unchanged one passes) and with the real go program (slow: an unchanged candidate passes).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from runner import tasks
from tests.support.cli import FIXTURE_TASKS, ROOT
from tests.support.process import require

pytestmark = pytest.mark.serial  # real runtimes, real limits, real signals: alone on the machine

README = ROOT / "docs" / "compare.md"
WORKFLOW = ROOT / ".github" / "workflows" / "memory.yml.example"


def block(marker: str) -> list[str]:
    """The lines of the fenced block right after `<!-- ci:marker -->` in docs/compare.md."""
    text = README.read_text()
    start = text.index(f"<!-- ci:{marker} -->")
    body = text[text.index("```sh\n", start) + len("```sh\n") :]
    return body[: body.index("```")].strip().splitlines()


def job(marker: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run a README block with bash -e, as a CI step runs its script: the first failing line ends
    the job with its exit status."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    full = {**os.environ, "PATH": path, **env}
    full.pop("CI", None)
    return subprocess.run(
        ["bash", "-e", "-c", "\n".join(block(marker))],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_workflow_runs_the_readme_lines():
    lines = [line.strip() for line in WORKFLOW.read_text().splitlines()]
    candidate = block("candidate")
    at = lines.index(candidate[0])
    assert lines[at : at + len(candidate)] == candidate
    assert block("baseline")[:2] == candidate[:2]  # the same variants and sizes on both sides
    assert candidate[-1].startswith("memrun compare ci/memory-baseline candidate")


def test_a_real_regression_fails_the_job_and_an_unchanged_candidate_passes(tmp_path):
    env = {
        "MEMRUN_TASKS": str(FIXTURE_TASKS),
        "MEMRUN_BUILD": str(tmp_path / "build"),
        "RUNTIMES": "-r fake",
        "SIZES": "--n 1k --repeat 3 --sleep 0.2",
    }
    base = job("baseline", tmp_path, env)
    assert base.returncode == 0, base.stdout + base.stderr
    assert (tmp_path / "ci" / "memory-baseline" / "runs.jsonl").exists()

    same = job("candidate", tmp_path, env)
    assert same.returncode == 0, same.stdout + same.stderr
    report = (tmp_path / "candidate" / "compare.md").read_text()
    assert "| fake | 1k |" in report and "1 not significant" in report

    shutil.rmtree(tmp_path / "candidate")  # a CI job starts from a clean checkout
    worse = job("candidate", tmp_path, {**env, "FAKE_EXTRA_KIB": "8192"})  # the "upgrade" holds 8 MiB more
    assert worse.returncode == 1, worse.stdout + worse.stderr
    report = (tmp_path / "candidate" / "compare.md").read_text()
    assert "99 % intervals apart | **larger**" in report and "1 larger" in report
    assert (tmp_path / "candidate" / "gab.json").exists()


@pytest.mark.slow
def test_an_unchanged_go_candidate_passes(tmp_path):
    require(tasks.readiness(tasks.load_all()["go"]).usable, "go toolchain")
    # the docs' 7 repeats (their intervals decide the job); a 0.3 s sleep: go is `ready` at 10k
    # within 0.1 s here (0.09 s at most in 14 runs, 2026-11-27, beside other engineers' tests),
    # and its memory holds still from `ready` (test_programs' proof)
    env = {"RUNTIMES": "-r go", "SIZES": "--n 1,1e4 --repeat 7 --sleep 0.3"}
    (tmp_path / "ci").mkdir()
    base = job("baseline", tmp_path, env)
    assert base.returncode == 0, base.stdout + base.stderr
    cand = job("candidate", tmp_path, env)
    report = (tmp_path / "candidate" / "compare.md").read_text()
    assert cand.returncode == 0, report + cand.stderr
    assert "2 not significant" in report and "n 7+7" in report
