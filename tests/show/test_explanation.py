"""runner.show.explanation, what `memrun explain` prints, as the library gives it: the split under
its title with the stacks' lines, the reasons cells were left out, and one line when nothing can be
split. The command line's own tests are in tests/analysis/test_explain_cli.py."""

from __future__ import annotations

import pytest

from runner.results import ResultsDir
from runner.show.explanation import SPLITS_TITLE, ExplainError, books_text, load_runs, splits_text
from tests.analysis.test_explain import KiB, MiB, run, snapshot


def _records() -> list:
    return [
        run(1, snapshot(0, MiB, 0, MiB, None), 2 * MiB, None),
        run(100, snapshot(100 * 8 * KiB, MiB + 100 * KiB, 0, MiB, None), 2 * MiB + 900 * KiB, None),
        run(1000, snapshot(0, 9 * MiB, 0, 0, None, t=9.0), 9 * MiB, None),  # after the sleep
    ]


def test_the_split_is_a_table_under_its_title_and_the_left_out_cells_are_notes():
    text, notes = splits_text(_records(), (), (), "res", required=True)
    assert text is not None and text.startswith(f"{SPLITS_TITLE}\n\n| variant |")
    assert any(line.startswith("| v | 100 | 8.00 | 1.00 |") for line in text.splitlines())
    assert notes == ["v at N=1,000: 1 snapshot(s) outside the hold, left out"]
    assert splits_text(_records(), (), [1000], "res", required=False)[0] is None


def test_nothing_to_split_is_one_line_naming_the_results_when_required():
    nothing = [r.replace(verdict="invalid") for r in _records()]
    with pytest.raises(ExplainError, match=r"^no valid runs with a snapshot at their hold .* in res$"):
        splits_text(nothing, (), (), "res", required=True)
    assert splits_text(nothing, (), (), "res", required=False) == (None, [])


def test_the_books_say_so_when_there_are_no_books_runs():
    assert books_text(_records(), None, ()).endswith("\n\n(no books runs at N and at 1)")


def test_stored_runs_load_and_unreadable_ones_are_one_line(tmp_path):
    store = ResultsDir(tmp_path / "res")
    store.check_writable()
    for record in _records():
        store.add_run(record)
    assert [r.n for r in load_runs(tmp_path / "res", print)] == [1, 100, 1000]
    (tmp_path / "res" / "runs.jsonl").write_text("{not json\n{}\n")
    with pytest.raises(ExplainError):
        load_runs(tmp_path / "res", print)
