"""Helpers every kind of test uses: the probes (tiny programs of known behaviour), a skip that is a
failure under CI, marking and finding leftover processes, and Ctrl-C's default handler."""

from __future__ import annotations

import os
import signal
import sys
import uuid
from pathlib import Path

import psutil
import pytest

PROBES = Path(__file__).resolve().parents[1] / "probes"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def probe(name: str, *args: object) -> list[str]:
    return [sys.executable, str(PROBES / name), *map(str, args)]


def require(condition: bool, why: str) -> None:
    """Skip when a prerequisite is missing, except under CI=true, where it is a failure."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required under CI=true: {why}")
    pytest.skip(why)


def marker() -> str:
    return f"memrun-test-{uuid.uuid4().hex}"


def processes_with(mark: str) -> list[psutil.Process]:
    out = []
    for p in psutil.process_iter(["cmdline"]):
        try:
            if any(mark in part for part in p.info["cmdline"] or []):
                out.append(p)
        except psutil.Error:
            continue
    return out


def default_sigint() -> None:
    """preexec_fn for a child a test will Ctrl-C: a test run started with SIGINT ignored (nohup, a
    background job of a script) passes that on to its children, and Python then installs no
    KeyboardInterrupt handler, so the child would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
