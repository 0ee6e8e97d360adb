"""pytest finds the tests here; the helpers they share are in tests/support/ (no test module
imports another).

The suite runs in groups (tests/support/groups.py, docs/development.md "The test suite"): tests
marked `serial` one at a time, every other test side by side under pytest-xdist, each with a lock
and a limits journal of its own; the serial tests that boot a guest (`guest`) are a group of
their own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import groups


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that boots a guest (`guest`) is serial too: a guest takes a core for minutes."""
    loose = [item.nodeid for item in items if item.get_closest_marker("guest") and not groups.is_serial(item)]
    if loose:
        raise pytest.UsageError(f"marked guest but not {groups.MARK}: {', '.join(loose)}")


@pytest.fixture(autouse=True)
def _group(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    if groups.is_serial(request.node):
        yield
        return
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield from groups.own_machine(request, tmp_path_factory.mktemp("own-machine"), monkeypatch)
