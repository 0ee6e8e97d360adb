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
# scripts/test names each group's pytest run in this variable, which every memrun and program the
# group starts inherits: the parallel group runs beside the serial one, and its fake programs are
# not a serial test's leftovers
GROUP_ENV = "MEMRUN_TEST_GROUP"


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


def of_another_group(p: psutil.Process) -> bool:
    """Whether p was started by another of scripts/test's groups (its environment names a group
    other than this process's). A process that names none, or cannot be read, counts as ours."""
    mine = os.environ.get(GROUP_ENV)
    if not mine:
        return False
    try:
        theirs = p.environ().get(GROUP_ENV)
    except psutil.Error:
        return False
    return bool(theirs) and theirs != mine


def ours(pids: list[int]) -> list[int]:
    """Of these PIDs, those not started by another test group."""
    out = []
    for pid in pids:
        try:
            if not of_another_group(psutil.Process(pid)):
                out.append(pid)
        except psutil.Error:
            continue
    return out


def processes_with(mark: str) -> list[psutil.Process]:
    """The processes whose command line contains mark, leaving out another test group's."""
    out = []
    for p in psutil.process_iter(["cmdline"]):
        try:
            if any(mark in part for part in p.info["cmdline"] or []) and not of_another_group(p):
                out.append(p)
        except psutil.Error:
            continue
    return out


def default_sigint() -> None:
    """preexec_fn for a child a test will Ctrl-C: a test run started with SIGINT ignored (nohup, a
    background job of a script) passes that on to its children, and Python then installs no
    KeyboardInterrupt handler, so the child would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
