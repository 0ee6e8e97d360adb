"""runner.show.ending: how a run ended, in words; and memrun sweep's own text path (the CLI and
the story it prints at the end) imports no matplotlib, whose import is most of a sweep's start
in a TCG guest (tests/vm)."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

from runner.results.record import RunRecord
from runner.show.ending import end_label
from tests.support.cli import ROOT


def _ended(result: object) -> str:
    return end_label(RunRecord(variant="v", n=1, verdict="valid", sleep_s=1.0, label="l", result=result))  # type: ignore[arg-type]


def test_the_end_of_a_run_in_words():
    def result(**kw: object) -> SimpleNamespace:
        base = {
            "cgroup_oom_kills": None,
            "timed_out": False,
            "interrupted": False,
            "signal": None,
            "exit_code": 0,
        }
        return SimpleNamespace(**{**base, **kw})

    assert _ended(None) == "not run"
    assert _ended(result()) == "exit 0"
    assert _ended(result(exit_code=None, signal="SIGKILL", cgroup_oom_kills=2)) == "OOM kill (2)"
    assert _ended(result(exit_code=None, signal="SIGKILL")) == "killed by SIGKILL"
    assert _ended(result(exit_code=None, signal="SIGKILL", timed_out=True)) == "timeout (killed)"


def test_the_sweep_command_and_its_story_import_no_matplotlib():
    code = (
        "import sys\n"
        "import runner.cli\n"
        "from runner.cli import sweeping\n"
        "from runner.show.story import sweep_ended, write_failed\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'pandas')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
