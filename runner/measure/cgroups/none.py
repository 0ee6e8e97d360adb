"""No cgroup: where none can be made (not root, no memory controller, --cgroup none), a run is
measured from its process tree alone. Every cgroup figure is then None with the reason beside it,
never 0, and a cap cannot be set."""

from __future__ import annotations

from pathlib import Path

from runner.measure import procfs
from runner.measure.cgroups.base import RunCgroup


class NoCgroup(RunCgroup):
    version = None

    def __init__(self, reason: str) -> None:
        super().__init__(Path("/nonexistent"))
        self.reason = reason

    def __repr__(self) -> str:
        return f"NoCgroup({self.reason!r})"

    @property
    def launcher_arg(self) -> str:
        return "-"  # the launcher joins nothing

    def pids(self) -> list[int]:
        return []

    def members(self, root: int) -> list[int]:
        return [root, *procfs.descendants(root)]

    def usage(self) -> int | None:
        return None

    def peak(self) -> tuple[int | None, str | None]:
        return None, self.reason

    def breakdown(self) -> dict[str, int]:
        return {}

    def account_sockets(self) -> bool | None:
        return None

    def oom_kills(self) -> int | None:
        return None

    def set_limit(self, limit: int) -> int:
        raise OSError(f"no memory cgroup to cap: {self.reason}")

    def kill_all(self, deadline: float = 10.0) -> None:
        """Nothing holds the run's processes together here: the core kills its process group."""

    def remove(self) -> None:
        """Nothing was made."""
