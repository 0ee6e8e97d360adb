"""runner.bisection.plan: what a `memrun bisect` asks is checked before anything is built, against
the fake library's registry on disk (tests/fixtures/versioned: versions 1.0.0 to 1.8.0 and 2.0.0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.bisection.plan import BisectError, plan
from runner.tasks import load_all

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "versioned"


@pytest.fixture(scope="module")
def fakelib():  # type: ignore[no-untyped-def]
    return load_all(FIXTURE)["fakelib"]


def test_the_range_is_the_registrys_releases_between_both_ends(fakelib):
    asked = plan(fakelib, "fakelib", "1.2.0..2.0.0", "1e4", "10%", "3", None)
    assert asked.versions == ["1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0", "1.7.0", "1.8.0", "2.0.0"]
    assert (asked.n, asked.threshold, asked.repeats, asked.spec.name) == (10_000, 0.1, 1, "fakelib")
    assert asked.header("peak_rss") == (
        "bisect fakelib: fakelib 1.2.0 .. 2.0.0, 8 releases in the registry's list; per-task peak_rss "
        "at N=10,000, threshold 10%; at most 5 builds"
    )
    assert plan(fakelib, "fakelib", "1.0.0..1.1.0", "100", "5", "auto", 4).repeats == 4


@pytest.mark.parametrize(
    "library, span, n, threshold, words",
    [
        ("tokio", "1.0.0..2.0.0", "100", "10%", "fakelib has no version axis 'tokio' (its axes: fakelib)"),
        ("fakelib", "1.0.0", "100", "10%", "expected FROM..TO"),
        ("fakelib", "1.0.0..1.9.0", "100", "10%", "1.9.0 is not in the registry"),
        ("fakelib", "1.0.0..2.0.0", "abc", "10%", "not a task count"),
        ("fakelib", "1.0.0..2.0.0", "100", "lots", "--threshold: not a percentage"),
        ("fakelib", "1.0.0..2.0.0", "1", "10%", "--n must be at least 2"),
    ],
)
def test_what_cannot_be_searched_is_one_line(fakelib, library, span, n, threshold, words):
    with pytest.raises(BisectError, match=r"^[^\n]*$") as e:
        plan(fakelib, library, span, n, threshold, "3", None)
    assert words in str(e.value)
