"""RLIMIT_NOFILE for each run of the connections workload: what the server and the client get.

The interface with the measurement. Before a connections run, call `run_nofile(n)`; set
`.server` as both the soft and the hard RLIMIT_NOFILE of the server program (in the child before
it execs, e.g. `apply(value)` in a preexec function or the launcher's own setrlimit) and `.client`
on memrun's load client the same way. It raises NofileError, whose message is the one line to
show, when N connections cannot fit under what memrun may set here.

Why these values:
- One descriptor per connection at each end, plus the runtime's own (the listening socket, epoll,
  eventfds, pipes, a JVM's jars): N + SERVER_SPARE for the server, N + CLIENT_SPARE for the client,
  rounded up to FD_STEP. The value is a function of N alone, not of the shell that started memrun,
  so a figure does not depend on `ulimit -n`.
- Soft and hard alike: Go (since 1.19) and HotSpot (MaxFDLimit, on by default) raise their soft
  limit to the hard one at start, so a hard limit left at the shell's would give them more than
  other runtimes get, and a runtime may size tables by its limit.
- Never above the ceiling: the kernel refuses an RLIMIT_NOFILE above fs.nr_open, and a process
  without CAP_SYS_RESOURCE cannot raise a hard limit at all. Root is not enough: a container may
  drop CAP_SYS_RESOURCE (the reference machine's root has a hard limit of 20,000 it cannot lift).
  When the rounded value is above the ceiling but N plus the minimum spare still fits, the ceiling
  itself is used; below that, NofileError.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass

from runner.limits.host import UNLIMITED, Limits, int_value, read_limits

SERVER_SPARE = 1024  # descriptors a server's runtime may hold besides its connections
SERVER_MIN_SPARE = 256  # the least spare accepted when the ceiling is tighter than the rounded value
CLIENT_SPARE = 64  # memrun's client: stdio, epoll, a pipe or two
CLIENT_MIN_SPARE = 16
FD_STEP = 1024  # values are rounded up to this


class NofileError(ValueError):
    """N connections need more descriptors than memrun may give a process here; the message says
    which ceiling (fs.nr_open, or memrun's own hard limit) and how to lift it."""


@dataclass(frozen=True)
class RunNofile:
    """The RLIMIT_NOFILE (soft = hard) to set on each process of one connections run."""

    server: int
    client: int
    ceiling: int | None  # the most memrun can set here; None when unreadable
    ceiling_name: str  # what the ceiling is, e.g. "fs.nr_open"


def wanted(n: int, spare: int = SERVER_SPARE) -> int:
    """The value asked for: N plus the spare, rounded up to FD_STEP."""
    return -(-(n + spare) // FD_STEP) * FD_STEP


def ceiling(limits: Limits) -> tuple[int | None, str]:
    """The largest RLIMIT_NOFILE memrun can give a child here, and what sets it.

    With CAP_SYS_RESOURCE, fs.nr_open (the kernel's maximum); without it, this process's own hard
    limit, since an unprivileged process can only lower a hard limit.
    """
    nr_open = int_value(limits, "nr_open")
    hard = limits.get("nofile_hard")
    if limits.get("cap_sys_resource") or hard == UNLIMITED:
        return nr_open, "fs.nr_open"
    hard_value = int_value(limits, "nofile_hard")
    if hard_value is None:
        return nr_open, "fs.nr_open"
    if nr_open is not None and nr_open < hard_value:
        return nr_open, "fs.nr_open"
    return hard_value, "memrun's hard RLIMIT_NOFILE (no CAP_SYS_RESOURCE to raise it)"


def remedy(needed: int, limits: Limits) -> str:
    """How to let a process hold `needed` descriptors here."""
    name = ceiling(limits)[1]
    target = wanted(needed, 0)
    if name == "fs.nr_open":
        return f"--raise-limits (root), or sysctl -w fs.nr_open={target}"
    return (
        f"start memrun with a hard limit of at least {target:,} (as root with CAP_SYS_RESOURCE: "
        f"ulimit -Hn {target}; a systemd unit: LimitNOFILE={target}; a container: "
        f"--ulimit nofile={target}:{target}); no sysctl lifts it"
    )


def _value(n: int, spare: int, min_spare: int, top: int | None) -> int | None:
    """The value for one process, or None when even N plus the minimum spare is above the ceiling."""
    value = wanted(n, spare)
    if top is None or value <= top:
        return value
    return top if n + min_spare <= top else None


def run_nofile(n: int, limits: Limits | None = None) -> RunNofile:
    """RLIMIT_NOFILE for the server and the client of a run with N connections (module docstring).

    NofileError when N does not fit under the ceiling; read the limits after --raise-limits has
    raised fs.nr_open (the default reads them now).
    """
    limits = read_limits() if limits is None else limits
    top, name = ceiling(limits)
    server = _value(n, SERVER_SPARE, SERVER_MIN_SPARE, top)
    client = _value(n, CLIENT_SPARE, CLIENT_MIN_SPARE, top)
    if server is None or client is None:
        needed = n + (SERVER_MIN_SPARE if server is None else CLIENT_MIN_SPARE)
        who = "the server" if server is None else "the client"
        raise NofileError(
            f"{n:,} connections need an RLIMIT_NOFILE of at least {needed:,} for {who}, but memrun can "
            f"set at most {top:,} here ({name}): {remedy(needed, limits)}"
        )
    return RunNofile(server, client, top, name)


def apply(value: int, pid: int = 0) -> None:
    """Set RLIMIT_NOFILE soft = hard = value on process `pid` (0: this one, e.g. in a preexec
    function between fork and exec). Lowering a hard limit cannot be undone without
    CAP_SYS_RESOURCE, so never call it on memrun's own process."""
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (value, value))
