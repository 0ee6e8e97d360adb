"""runner.capacity.check: what holding means for a point answer and for a band, and the words a
lowered answer is stored with."""

from __future__ import annotations

from runner.capacity import BoundaryCheck
from runner.capacity.check import _why
from runner.measure.result import RunResult
from runner.results import RunRecord
from runner.results.capacity import CapacityResult


def _run(n: int, valid: bool, code: str | None = None) -> RunRecord:
    result = RunResult.from_dict({"wall_s": 3.0, "peak_rss": 1, "exit_code": 0 if valid else 1})
    verdict = "valid" if valid else "failed"
    return RunRecord("v", n, verdict, code=code or ("ok" if valid else "exit"), result=result)


def _check(at_max: list[bool], above: bool, noisy: bool = False) -> BoundaryCheck:
    return BoundaryCheck(
        "v", 1 << 28, 1000, 1071, 2.0, [_run(1000, ok) for ok in at_max], _run(1071, above), noisy=noisy
    )


def test_a_point_holds_when_max_n_fits_again_and_above_the_first_failure_does_not():
    assert _check([True], False).held
    assert not _check([True], True).held
    assert not _check([False], False).held


def test_a_band_holds_when_max_n_fits_in_all_three_runs_whatever_above_does():
    assert _check([True, True, True], True, noisy=True).held
    assert _check([True, True, True], False, noisy=True).held
    assert not _check([True, False], False, noisy=True).held


def test_a_stalled_exit_after_the_sleep_is_a_fit_but_an_oom_kill_is_not():
    stalled = _run(1000, False, code="exit-stalled")
    stalled = stalled.replace(verdict="invalid")
    assert BoundaryCheck("v", 1 << 28, 1000, 1071, 2.0, [stalled], _run(1071, False)).held
    killed = stalled.replace(result=RunResult.from_dict({"wall_s": 3.0, "cgroup_oom_kills": 1}))
    assert not BoundaryCheck("v", 1 << 28, 1000, 1071, 2.0, [killed], _run(1071, False)).held


def test_a_lowered_answer_says_which_run_lowered_it():
    failed = _check([False], False)
    failed.after = CapacityResult("v", 1 << 28, 950)
    assert _why(failed, 1020) == "lowered: failed at 1,000 in a check"
    above = _check([True], True)
    above.after = CapacityResult("v", 1 << 28, 970)
    assert _why(above, 1020).startswith("lowered: fitted at 1,071, past the first failing N 1,020")
    held = _check([True], False)
    held.after = CapacityResult("v", 1 << 28, 1000)
    assert _why(held, 1020) == "held in a check" and held.to_json()["lowered_to"] is None
