"""runner.limits.raising: raise what N needs, and always put it back."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from runner.limits import host, raising
from tests.conftest import require
from tests.limits.here import HERE, JAVA, RUST


def _read_map_count() -> int:
    return int(Path("/proc/sys/vm/max_map_count").read_text())


def _small_raise() -> tuple[int, list[dict]]:
    """An N whose only need is a few thousand more mappings than now: harmless for the machine."""
    current = _read_map_count()
    return current - host.BASE_MAPS + 1, [{"maps": 1}]


def _can_write_sysctl() -> bool:
    return os.geteuid() == 0 and os.access("/proc/sys/vm/max_map_count", os.W_OK)


def test_raised_limits_raises_a_little_and_restores():
    require(_can_write_sysctl(), "root with a writable /proc/sys")
    before = _read_map_count()
    n, needs = _small_raise()
    log: list[str] = []
    with raising.raised_limits(n, needs, log.append) as raised:
        inside = _read_map_count()
    assert raised == ["vm.max_map_count"]
    assert before < inside <= before + host.HEADROOM + host.ROUND_TO
    assert _read_map_count() == before
    assert log == [
        f"vm.max_map_count {before} -> {inside}",
        f"vm.max_map_count {inside} -> {before} (restored)",
    ]


def test_raised_limits_restores_when_the_body_raises():
    require(_can_write_sysctl(), "root with a writable /proc/sys")
    before = _read_map_count()
    n, needs = _small_raise()
    with pytest.raises(RuntimeError, match="body failed"), raising.raised_limits(n, needs, lambda s: None):
        assert _read_map_count() > before
        raise RuntimeError("body failed")
    assert _read_map_count() == before


def test_raised_limits_restores_on_sigterm():
    require(_can_write_sysctl(), "root with a writable /proc/sys")
    require(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, "default SIGTERM disposition")
    before = _read_map_count()
    n, needs = _small_raise()
    with pytest.raises(raising.Terminated), raising.raised_limits(n, needs, lambda s: None):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises here, at once
    assert _read_map_count() == before
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_raised_limits_leaves_a_callers_sigterm_handler_in_charge():
    def callers(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, callers)
    try:
        with raising.raised_limits(10, [RUST], print):
            assert signal.getsignal(signal.SIGTERM) is callers
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_limit_that_cannot_be_set_is_named_and_the_rest_put_back():
    values = {"a": 1}

    def write_a(value: int) -> None:
        values["a"] = value

    def refuse(value: int) -> None:
        raise PermissionError("read-only file system")

    changes = [raising.Change("a", 1, 10, write_a), raising.Change("kernel.pid_max", 32768, 102400, refuse)]
    refused = r"cannot set kernel\.pid_max to 102400"
    with pytest.raises(OSError, match=refused), raising.applied(changes, print):
        pass
    assert values == {"a": 1}


def test_raised_limits_needs_root_only_when_something_must_change(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    n, needs = _small_raise()
    with pytest.raises(raising.NotRootError, match="needs root"), raising.raised_limits(n, needs, print):
        pass
    with raising.raised_limits(10, [RUST], print) as raised:
        assert raised == []


def test_plan_takes_the_largest_need_of_all_variants():
    changes = {c.name: c.new for c in raising.plan(100_000, [RUST, JAVA, {}], HERE)}
    assert changes == {"kernel.pid_max": 102400, "vm.max_map_count": 401408}


def test_applied_restores_everything_in_reverse_even_past_a_failure():
    values = {"a": 1, "b": 2}
    order: list[str] = []

    def writer(name: str, fail_on: int | None = None):
        def write(value: int) -> None:
            if value == fail_on:
                raise OSError("read-only")
            order.append(f"{name}={value}")
            values[name] = value

        return write

    changes = [raising.Change("a", 1, 10, writer("a")), raising.Change("b", 2, 20, writer("b", fail_on=2))]
    log: list[str] = []
    with pytest.raises(KeyboardInterrupt), raising.applied(changes, log.append):
        raise KeyboardInterrupt
    assert order == ["a=10", "b=20", "a=1"]
    assert values == {"a": 1, "b": 20}
    assert "could not restore b to 2: read-only" in log
