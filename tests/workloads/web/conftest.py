"""The http tests' fake variant (tests/fixtures/tasks/fake, its http table) and the machine lock."""

from __future__ import annotations

import pytest

from runner import tasks
from runner.workload import get as get_workload
from tests.support.cli import FIXTURE_TASKS
from tests.support.connections import machine  # noqa: F401  (fixture)


@pytest.fixture(scope="session")
def fake_http() -> tasks.Variant:
    """The fixture's fake variant as an http server, built."""
    variant = tasks.load_all(FIXTURE_TASKS)["fake"]
    assert not tasks.build_all([variant], log=lambda line: None)
    return variant.under(get_workload("http"))
