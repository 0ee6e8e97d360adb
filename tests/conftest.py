"""pytest finds the tests here; the helpers they share are in tests/support/ (no test module
imports another).

The suite runs in two groups (tests/support/groups.py, docs/development.md "The test suite"):
tests marked `serial` one at a time on an otherwise quiet machine, every other test side by side
under pytest-xdist, each with a lock and a limits journal of its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import groups


@pytest.fixture(autouse=True)
def _group(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    if groups.is_serial(request.node):
        yield
        return
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield from groups.own_machine(request, tmp_path_factory.mktemp("own-machine"), monkeypatch)
