"""What the connections tests share: the fake server of known cost, built once, and the machine
(fixtures: tests/connections/conftest.py and tests/test_execute.py import them from here).

Every test that runs a server holds memrun's machine-wide measurement lock (waiting its turn), so
that it neither disturbs nor is disturbed by a sweep running beside it."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner import lock, tasks
from runner.workload import get as get_workload
from tests.support.cli import FIXTURE_TASKS

KNOWN_KIB = 64  # what each connection of the fake server holds (server.c, FAKE_CONN_KIB)


@pytest.fixture(scope="session")
def fake() -> tasks.Variant:
    """The fixture's fake variant as a connections server, built."""
    variant = tasks.load_all(FIXTURE_TASKS)["fake"]
    assert not tasks.build_all([variant], log=lambda line: None)
    return variant.under(get_workload("connections"))


@pytest.fixture(scope="session")
def fake_server(fake) -> Path:
    return fake.folder.build_dir / "fake-server"


@pytest.fixture
def machine() -> Iterator[None]:
    """The measurement lock for one test (queued behind any measurement already running)."""
    with lock.measuring(log=lambda line: None, wait=True):
        yield


def sockets_on(port: int) -> list[str]:
    """Every TCP socket on the machine with this port at either end (`ss -tan`, TIME-WAIT too)."""
    out = subprocess.run(["ss", "-Htan"], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if f":{port} " in f"{line} " or f":{port}\t" in line]


def start_server(binary: Path, port: int, n: int, **env: str) -> subprocess.Popen[str]:
    """The fake server on port, waiting until it listens."""
    proc = subprocess.Popen(
        [str(binary), str(port), str(n), "1024"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    for _ in range(200):
        if any("LISTEN" in line for line in sockets_on(port)):
            return proc
        time.sleep(0.01)
    proc.kill()
    raise AssertionError(f"the fake server never listened on {port}")
