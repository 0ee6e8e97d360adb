"""runner.derive.searches: the capacity blocks of the docs, from the committed answers."""

from __future__ import annotations

import pytest

from runner.derive.answers import AnswerError
from runner.derive.searches import checks, searches
from runner.workload import get


def test_each_search_is_a_line_and_the_last_one_a_sentence():
    lines = searches("plots/data:vm", get()).splitlines()
    assert lines and all(line.startswith("- **") and " answers; " in line for line in lines)
    last = searches("plots/data:vm", get(), last=True)
    assert last == lines[-1].split(": ", 1)[1]


def test_every_check_round_is_told_and_unreadable_answers_are_one_line(tmp_path):
    assert checks("plots/data:vm", get()).startswith("- **Check 1**")
    with pytest.raises(AnswerError, match="no such file or directory"):
        searches(str(tmp_path / "nowhere"), get())
