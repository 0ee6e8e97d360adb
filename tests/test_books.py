"""runner.books: a books run of the fake (a program of known cost, with a books table of its own),
and the longer run that follows one whose spawn outlasted its sleep."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from runner import books, tasks
from runner.tasks.books import read_books
from tests.support.cli import FIXTURE_TASKS


def fake_with_books(**env: str) -> tasks.Variant:
    """The fixture's fake, built, with books it prints nothing for (the figures are not what is
    tested here) and the environment given, which a books run adds to the program's."""
    variant = tasks.load_all(FIXTURE_TASKS)["fake"]
    assert not tasks.build_all([variant], log=lambda line: None)
    figure = {"name": "x", "regex": r"^x (\d+)", "unit": "B", "part": "heap"}
    table = {"what": "none", "env": env, "wait_s": 0.0, "figure": [figure]}
    return dataclasses.replace(variant, books=read_books(table, "books", Path("task.toml")))


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_books_run_whose_spawn_outlasted_its_sleep_is_run_again_longer():
    variant = fake_with_books(FAKE_SPAWN_S="1.2")
    first, second = books.run_long_enough(variant, 1000, 0.5, "here")
    assert first.code == "spawn-outlasted-sleep" and first.superseded, first.reason
    assert first.remedy == "re-run with sleep 5 s"  # --sleep auto's: twice 1.2 s, up to 5 s
    assert second.verdict == "valid" and not second.superseded, second.reason
    assert second.kind == "books" and second.sleep_s == 5.0


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_books_run_long_enough_is_run_once():
    (only,) = books.run_long_enough(fake_with_books(), 1000, 1.0, "here")
    assert only.verdict == "valid" and only.kind == "books" and not only.superseded


def test_only_variants_with_books_are_kept_each_other_said_skipped():
    plain = tasks.load_all(FIXTURE_TASKS)["fake"]
    table = {
        "what": "none",
        "env": {},
        "wait_s": 0.0,
        "figure": [{"name": "x", "regex": r"^x (\d+)", "unit": "B", "part": "heap"}],
    }
    with_books = dataclasses.replace(plain, name="booked", books=read_books(table, "books", Path("t.toml")))
    said: list[str] = []
    assert books.with_books([plain, with_books], log=said.append) == [with_books]
    assert said == ["fake: its manifest has no [variant.books]; skipped"]
    with pytest.raises(books.NoBooks, match="none of the chosen variants has"):
        books.with_books([plain], log=said.append)


@pytest.mark.serial
@pytest.mark.unbuilt
def test_books_of_a_hundred_lines_are_read_whole():
    """The fake prints 100 lines on stderr after `ready`, its figure in the first: a run keeps
    only the last 40 of them, a books run reads every one."""
    (only,) = books.run_long_enough(fake_with_books(FAKE_BOOKS_LINES="100"), 10, 1.0, "here")
    assert only.verdict == "valid", only.reason
    assert only.result is not None and "x 4096" not in only.result.stderr_tail
    assert only.books == {"x": 4096}, only.reason
