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
    """A test that boots a guest (`guest`) is serial too: a guest takes a core for minutes; so is
    a `quiet` test, which runs last (groups.ordered) so that the guests have ended by then."""
    for mark in ("guest", groups.QUIET, groups.UNBUILT):
        loose = [
            item.nodeid for item in items if item.get_closest_marker(mark) and not groups.is_serial(item)
        ]
        if loose:
            raise pytest.UsageError(f"marked {mark} but not {groups.MARK}: {', '.join(loose)}")
    both = [item.nodeid for item in items if item.get_closest_marker(groups.UNBUILT) and groups.is_late(item)]
    if both:  # the unbuilt part runs first, beside the guests: a quiet test there would wait for them
        raise pytest.UsageError(f"marked {groups.UNBUILT} and {groups.QUIET} or guest: {', '.join(both)}")
    groups.ordered(items)


@pytest.fixture(autouse=True)
def _group(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    if groups.is_serial(request.node):
        waited = groups.after_the_others(request.node)
        if waited is not None:  # in the JUnit file: whether the other groups still ran when it came
            request.node.user_properties.append(("waited_for_the_other_groups_s", round(waited, 1)))
        before = groups.built_task_programs()
        yield
        if built := sorted(set(groups.built_task_programs()) - set(before)):
            pytest.fail(
                f"built {', '.join(built)} of tasks/ while the task programs were being built: a test "
                f"that runs a real runtime is not `{groups.UNBUILT}`"
            )
        return
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield from groups.own_machine(request, tmp_path_factory.mktemp("own-machine"), monkeypatch)
