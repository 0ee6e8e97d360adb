"""What the workloads whose units each hold a TCP connection (connections, http) share: the
limits a descriptor per unit meets. memrun sets each run's RLIMIT_NOFILE for N
(runner.limits.files), the predictions count descriptors, ports and conntrack entries
(runner.limits.connections), and a plan probes whether conntrack tracks loopback."""

from __future__ import annotations

from typing import Any

from runner.workload import Workload


class HoldsDescriptors(Workload):
    """A workload whose every unit holds a file descriptor (a connection)."""

    def probe_limits(self, limits: Any) -> Any:
        from runner.limits.sockets import with_conntrack_probe

        return with_conntrack_probe(limits)

    def limit_hits(self, n: int, limits: Any) -> list[Any]:
        from runner.limits.connections import hits

        return hits(n, limits)

    def caps_n(self) -> bool:
        return True

    def run_nofile(self, n: int, limits: Any) -> tuple[int | None, str] | None:
        from runner.limits import files

        try:
            return files.run_nofile(n, limits).server, f"set by memrun for N = {n:,}"
        except files.NofileError:
            return files.ceiling(limits)

    def budget_floor(self) -> int | None:
        from runner.limits.connections import SERVER_FLOOR_BYTES

        return SERVER_FLOOR_BYTES
