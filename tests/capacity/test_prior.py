"""runner.capacity.prior: what a stored answer and its re-checks tell the next search."""

from __future__ import annotations

from runner.capacity.prior import checks_after, prior, seen_noisy
from runner.results import RunRecord
from runner.results.capacity import CapacityResult

SEARCHED = "20261123T174600-aaaaaa"
BEFORE, AFTER = "20261123T170000-bbbbbb", "20261123T190000-cccccc"


def _answer(noisy: bool = False) -> CapacityResult:
    return CapacityResult("pypy", 256 << 20, 93_658, 95_532, capacity_id=SEARCHED, noisy=noisy)


def _check(n: int, valid: bool, sweep_id: str = AFTER, **other) -> RunRecord:  # type: ignore[no-untyped-def]
    variant = other.pop("variant", "pypy")
    fields = {"kind": "capacity-check", "memory_cap": 256 << 20, "sweep_id": sweep_id, **other}
    return RunRecord(variant, n, "valid" if valid else "failed", **fields)


def test_a_point_answer_that_held_gives_its_failing_n_as_the_hint_and_no_noise():
    checks = checks_after([_check(93_658, True), _check(100_309, False)], _answer())
    p = prior(_answer(), checks)
    assert (p.result.max_n, p.hint, p.noisy) == (93_658, 95_532, False)


def test_a_check_that_failed_at_max_n_makes_the_next_search_noisy():
    p = prior(_answer(), checks_after([_check(93_658, False), _check(100_309, False)], _answer()))
    assert p.noisy and "re-check failed at 93,658" in p.why_noisy


def test_a_check_valid_past_the_first_failing_n_makes_it_noisy():
    p = prior(_answer(), checks_after([_check(93_658, True), _check(100_309, True)], _answer()))
    assert p.noisy and "past the first failing N 95,532" in p.why_noisy


def test_only_checks_of_this_boundary_made_after_its_search_count():
    others = [
        _check(93_658, False, sweep_id=BEFORE),  # checked an earlier answer
        _check(93_658, False, memory_cap=1 << 30),  # another budget
        _check(93_658, False, workload="connections"),
        _check(93_658, False, variant="python"),
        _check(93_658, False).replace(kind="capacity-probe"),
    ]
    assert checks_after(others, _answer()) == []
    assert not prior(_answer(), checks_after(others, _answer())).noisy


def test_a_noisy_answer_stays_noisy():
    assert prior(_answer(noisy=True), []).noisy


def test_a_cell_once_stored_as_a_band_stays_one_though_a_later_answer_says_point():
    """The reference's first check stored python-threads at 1 GiB as a point (it probed the band
    as one); the search before had stored a band. The next search and check treat it as a band."""
    band = CapacityResult("python-threads", 1 << 30, 22_203, None, capacity_id=SEARCHED, noisy=True)
    point = CapacityResult("python-threads", 1 << 30, 22_203, 22_648, capacity_id=AFTER, why="held")
    assert seen_noisy([band, point]) is band and seen_noisy([point]) is None
    p = prior(point, [], [band, point])
    assert p.noisy and p.why_noisy == f"an answer stored for it was a band ({SEARCHED})"
    assert not prior(point, [], [point]).noisy
