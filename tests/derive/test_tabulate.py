"""runner.derive.tabulate: the selections a table's --from names."""

from __future__ import annotations

import pytest

from runner.derive.query import QueryError
from runner.derive.tabulate import named


def test_each_from_is_a_name_and_its_selection():
    assert named(["a = plots/data:vm", "b=plots/bisect#2-"]) == {"a": "plots/data:vm", "b": "plots/bisect#2-"}
    with pytest.raises(QueryError, match=r"^--from 'plots/data': NAME=DIR\[:LABEL\]$"):
        named(["plots/data"])
