"""cgroup v1's memory controller: memory.usage_in_bytes and its high-water mark, a kernel-memory
counter of its own (memory.kmem.*), socket buffers counted apart (memory.kmem.tcp.*) and only once
socket accounting is turned on for the cgroup."""

from __future__ import annotations

import contextlib

from runner.measure.cgroups.base import RunCgroup

# memory.stat keys mapped to memrun's names.
KEYS = {"total_rss": "anon", "total_cache": "file", "total_shmem": "shmem"}


class V1Cgroup(RunCgroup):
    version = "v1"

    def usage(self) -> int | None:
        return self._read_int("memory.usage_in_bytes")

    def peak(self) -> tuple[int | None, str | None]:
        value = self._read_int("memory.max_usage_in_bytes")
        if value is None:
            return None, "memory.max_usage_in_bytes not readable (cgroup v1)"
        return value, None

    def breakdown(self) -> dict[str, int]:
        out = self._stat(KEYS)
        if out is None:
            return {}
        kmem = self._read_int("memory.kmem.usage_in_bytes")
        if kmem is not None:
            out["kernel"] = kmem
        # Socket buffers: a counter of their own, outside memory.usage_in_bytes, and only counted
        # once socket accounting is on (account_sockets).
        tcp = self._read_int("memory.kmem.tcp.usage_in_bytes")
        if tcp:
            out["sock"] = tcp
        return out

    def account_sockets(self) -> bool:
        """v1 associates sockets with a memory cgroup only once its memory.kmem.tcp.limit_in_bytes
        has been written (-1: no limit, accounting only); until then the struct sock of an accepted
        connection, allocated in softirq context, may be charged nowhere (measured on Linux 6.18:
        1.5 KiB per accepted connection in kmem without, 3.8 KiB with; docs/connections.md). The
        setting dies with the cgroup. The kernel logs once per boot that the file is deprecated."""
        try:
            (self.path / "memory.kmem.tcp.limit_in_bytes").write_text("-1")
        except OSError:
            return False
        return True

    def oom_kills(self) -> int | None:
        return _counter(self.path / "memory.oom_control", "oom_kill")

    def kernel_peak(self) -> int | None:
        return self._read_int("memory.kmem.max_usage_in_bytes")

    def set_limit(self, limit: int) -> int:
        (self.path / "memory.limit_in_bytes").write_text(str(limit))
        memsw = self.path / "memory.memsw.limit_in_bytes"  # only with swap accounting enabled
        if memsw.exists():
            with contextlib.suppress(OSError):
                memsw.write_text(str(limit))
        return self._read_int("memory.limit_in_bytes") or limit


def _counter(path, key: str) -> int | None:  # type: ignore[no-untyped-def]
    """One `key value` line of a flat-keyed cgroup file (memory.oom_control, memory.events)."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return None
