"""runner.derive.forking: each call in a process of its own, forked from this one: results in
order, what one call changes never seen by another (nor here), the first failure raised."""

from __future__ import annotations

import os

import pytest

from runner.derive.forking import ChildFailed, each_forked

SHARED = {"seen": []}  # state every child inherits


def _mutate(tag: str) -> tuple[int, list[str]]:
    SHARED["seen"].append(tag)
    return os.getpid(), list(SHARED["seen"])


def test_each_call_runs_in_a_fresh_fork_and_sees_no_other_calls_state(tmp_path):
    found = each_forked([lambda t=t: _mutate(t) for t in "abcd"], tmp_path, workers=2)
    assert [seen for _, seen in found] == [["a"], ["b"], ["c"], ["d"]]
    assert len({pid for pid, _ in found} | {os.getpid()}) == 5, "a process per call, none of them this one"
    assert SHARED["seen"] == [], "nothing a call changed reaches the parent"


def _fail() -> None:
    raise ValueError("docs/a.md:1: `memrun report nowhere` failed")


def test_a_calls_exception_is_raised_here_and_a_process_that_dies_is_named(tmp_path):
    with pytest.raises(ValueError, match="memrun report nowhere"):
        each_forked([lambda: 1, _fail, lambda: 3], tmp_path / "a", workers=1)
    with pytest.raises(ChildFailed, match="ended with status 9 and no result"):
        each_forked([lambda: os._exit(9)], tmp_path / "b", workers=1)
    with pytest.raises(ChildFailed, match="pickle"):
        each_forked([lambda: lambda: 0], tmp_path / "c", workers=1)  # a result that does not pickle
