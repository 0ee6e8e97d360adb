"""cgroup v2's memory controller: memory.current, memory.peak (Linux 5.19+), memory.stat with the
kernel's parts (kernel, kernel_stack, pagetables, slab, sock), memory.events for OOM kills, and
memory.max with memory.swap.max = 0 as the cap. Sockets are always charged here."""

from __future__ import annotations

import contextlib

from runner.measure.cgroups.base import RunCgroup
from runner.measure.cgroups.v1 import _counter

# memory.stat keys mapped to memrun's names.
KEYS = {
    "anon": "anon",
    "file": "file",
    "kernel": "kernel",
    "kernel_stack": "kernel_stack",
    "pagetables": "pagetables",
    "slab": "slab",
    "sock": "sock",
    "shmem": "shmem",
}


class V2Cgroup(RunCgroup):
    version = "v2"

    def usage(self) -> int | None:
        return self._read_int("memory.current")

    def peak(self) -> tuple[int | None, str | None]:
        value = self._read_int("memory.peak")
        if value is None:
            return None, "memory.peak not readable (cgroup v2; memory.peak needs Linux 5.19+)"
        return value, None

    def breakdown(self) -> dict[str, int]:
        return self._stat(KEYS) or {}

    def account_sockets(self) -> bool:
        """v2 charges every socket of the cgroup's processes to it, always."""
        return True

    def oom_kills(self) -> int | None:
        return _counter(self.path / "memory.events", "oom_kill")

    def set_limit(self, limit: int) -> int:
        (self.path / "memory.max").write_text(str(limit))
        with contextlib.suppress(OSError):  # no swap controller: nothing to exclude
            (self.path / "memory.swap.max").write_text("0")
        return self._read_int("memory.max") or limit
