"""runner.analysis.checks: the reference's `--check` rounds read back from plots/data alone, their
verdicts agreeing with what each check stored, and its hold rates under the band rule."""

from __future__ import annotations

from pathlib import Path

from runner.analysis.checks import rounds
from runner.results import load_capacity, load_records, read_jsonl
from runner.show.tables.capacity import check_summary

DATA = Path(__file__).resolve().parents[2] / "plots" / "data"


def _rounds():  # type: ignore[no-untyped-def]
    capacity = [r for r in load_capacity([DATA]) if (r["workload"], r["label"]) == ("sleep", "vm")]
    sessions = [s for s in read_jsonl(DATA / "sweeps.jsonl") if s.get("event") == "start"]
    records = [r for _, r in load_records([DATA]) if (r.workload, r.label) == ("sleep", "vm")]
    return rounds(capacity, sessions, records)


def test_each_check_the_runs_say_held_is_the_one_it_stored_as_held():
    found = _rounds()
    assert [len(r.ids) for r in found] == [3, 1], "the first check ran in three sessions"
    assert [len(r.checks) for r in found] == [58, 58]
    for r in found:
        for c in r.checks:
            assert c["held"] == (c["why"] == "held in a check"), c


def test_python_threads_at_1_gib_is_a_band_in_both_checks_and_the_rates_follow():
    """The search stored it as a band; the first check probed it as a point and stored it as one.
    Under the rule (once noisy, a band in every check) both checks count it as a band."""
    first, second = _rounds()
    for r in (first, second):
        (cell,) = [c for c in r.checks if (c["variant"], c["budget_bytes"]) == ("python-threads", 1 << 30)]
        assert cell["noisy"]
    assert check_summary(first.checks).startswith(
        "30 of 33 point answers hold (91 %). 21 of 25 bands hold at max N (84 %). 7 answer(s) lowered"
    )
    assert check_summary(second.checks).startswith(
        "30 of 30 point answers hold (100 %). 26 of 28 bands hold at max N (93 %). 2 answer(s) lowered"
    )
