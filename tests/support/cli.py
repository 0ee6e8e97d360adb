"""memrun through its real CLI, in a subprocess: the commands a user types, with the fixture task
folder (a fake program that holds a known amount of memory) where a test asks for it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.process import default_sigint

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_TASKS = ROOT / "tests" / "fixtures" / "tasks"


def memrun(*args: str, tmp_path: Path, env: dict[str, str] | None = None, **kw) -> subprocess.Popen:
    full_env = {
        **os.environ,
        "MEMRUN_TASKS": str(FIXTURE_TASKS),
        "MEMRUN_BUILD": str(tmp_path / "build"),
        **(env or {}),
    }
    full_env.pop("CI", None)
    return subprocess.Popen(
        [sys.executable, "-m", "runner", *args],
        cwd=ROOT,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **{"preexec_fn": default_sigint, **kw},
    )


def run(*args: str, tmp_path: Path, env=None, timeout=120) -> subprocess.CompletedProcess:
    p = memrun(*args, tmp_path=tmp_path, env=env)
    out, err = p.communicate(timeout=timeout)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def rows(out: Path) -> list[dict]:
    path = out / "runs.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


# What every memrun command says first when it removed the run cgroups of a memrun killed before
# it could: run cgroups are machine-wide, so another group's killed memrun can leave one that a
# parallel test's command removes (test_bad_sleep, 2026-11-28). Not the command's own error.
ANOTHERS_CGROUPS = re.compile(r"memrun: removed \d+ run cgroup\(s\) left by a memrun that is gone")


def one_line_error(p, *words):
    """The command's error: exit 2, one line, no traceback (another memrun's cleanup aside)."""
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = [line for line in p.stderr.splitlines() if line.strip() and not ANOTHERS_CGROUPS.fullmatch(line)]
    assert len(lines) == 1, p.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def show(*args: str, tmp_path: Path | None = None) -> subprocess.CompletedProcess:
    """memrun in this process, for the commands that show stored results (report, plot, compare):
    they start no process and hold no lock, so they need no interpreter of their own. The same
    entry point as the console script, its exit status caught; stdout and stderr captured."""
    import contextlib
    import io

    from runner.cli import run as entry

    out, err = io.StringIO(), io.StringIO()
    argv, sys.argv = sys.argv, ["memrun", *args]
    code: int = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            entry()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = argv
    return subprocess.CompletedProcess(["memrun", *args], code, out.getvalue(), err.getvalue())
