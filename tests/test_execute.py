"""runner.execute.Launch: the command every workload's execute() starts and the Execution it ends
with, so what a record says ran is what ran."""

from __future__ import annotations

from types import SimpleNamespace

from runner.execute import Launch, Settings
from runner.judge.verdict import Verdict
from runner.measure import RunSpec


def _launch(spec: RunSpec | None = None) -> Launch:
    variant = SimpleNamespace(name="fake")
    return Launch(variant, 10, 2.0, Settings(spec or RunSpec()), ["prog", "10"], {"A": "1"}, ["why"])  # type: ignore[arg-type]


def test_timeout_is_the_users_else_the_workloads() -> None:
    assert _launch().timeout(94.0) == 94.0
    assert _launch(RunSpec(timeout=7.5)).timeout(94.0) == 7.5


def test_prefixed_runs_the_command_under_another() -> None:
    launch = _launch()
    pinned = launch.prefixed("taskset", "-c", "0")
    assert pinned.argv == ["taskset", "-c", "0", "prog", "10"]
    assert launch.argv == ["prog", "10"]  # the original is unchanged


def test_execution_says_what_ran_with_the_runs_cap() -> None:
    judged = Verdict("valid", "ok", "", None)
    ex = _launch(RunSpec(memory_cap=1 << 20)).prefixed("nice").execution(9.0, None, judged, client={"c": 1})  # type: ignore[arg-type]
    assert (ex.n, ex.sleep, ex.timeout, ex.memory_cap) == (10, 2.0, 9.0, 1 << 20)
    assert (ex.argv, ex.env, ex.flag_reasons) == (["nice", "prog", "10"], {"A": "1"}, ["why"])
    assert ex.judged is judged and ex.client == {"c": 1}
