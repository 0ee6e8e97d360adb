"""The workloads, found by name: what the task programs keep alive, N at once.

Every module that needs to know something about a workload asks the one it was given, or the one
a stored row names (get), and never compares a workload with a name. A new workload is a module
that defines a Workload (runner.workloads.base) and registers it, and a table in the manifests of
the variants that have it (`[variant.workloads.NAME]`).
"""

from __future__ import annotations

from runner.workloads.base import Words, Workload
from runner.workloads.connections import CONNECTIONS
from runner.workloads.sleep import SLEEP

__all__ = ["DEFAULT", "Words", "Workload", "get", "is_default", "names", "register", "unregister"]

DEFAULT = SLEEP.name  # every variant's `run`; and the workload of rows stored before there were others
_REGISTRY: dict[str, Workload] = {w.name: w for w in (SLEEP, CONNECTIONS)}


def register(workload: Workload) -> Workload:
    """Make a workload known by its name (a module of its own does this on import)."""
    _REGISTRY[workload.name] = workload
    return workload


def unregister(name: str) -> None:
    """Forget a workload registered for a while (a test's)."""
    if name != DEFAULT:
        _REGISTRY.pop(name, None)


def is_default(name: str | None) -> bool:
    """Whether a name is the default workload's, or no name (a row from before workloads): the one
    a variant's own `run` serves, where any other is a [variant.workloads.NAME] table."""
    return not name or name == DEFAULT


def names() -> tuple[str, ...]:
    """Every known workload's name, the default first."""
    return tuple(_REGISTRY)


def get(name: str | None = None) -> Workload:
    """The workload of that name; no name (a row stored before workloads existed) is the default.
    An unknown name is a KeyError that lists the known ones."""
    if not name:
        return _REGISTRY[DEFAULT]
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown workload {name!r}; known: {', '.join(_REGISTRY)}") from None
