"""Where run cgroups go: find, or make, a cgroup whose children get the memory controller.

On cgroup v1 any memory cgroup can have children with their own accounting, so runs go under
memrun's own cgroup. On v2 a cgroup that holds processes cannot hand a controller to its children
(the "no internal processes" rule: writing +memory to its cgroup.subtree_control fails with
EBUSY), and that is where memrun usually runs: a login session's scope, a service, a container's
own cgroup. Measuring there needs a parent that holds no process. The ways out, tried in order:

1. memrun's own cgroup already delegates memory, or can (the root cgroup; an empty parent).
2. memrun is the only process in its cgroup and may write to it (root; or a user's delegated
   scope, `systemd-run --user --scope -p Delegate=yes memrun ...`): it moves itself into a leaf
   child, `memrun-leaf`, and enables memory for its now-empty cgroup, as BenchExec does.
3. As root on the host's hierarchy: a subtree of its own at the top, `<mount>/memrun`, beside
   systemd's slices, so nothing systemd manages is touched.
4. As root at the root of a cgroup namespace (a container: Docker and Podman mount the
   container's own cgroup as /sys/fs/cgroup): every process of that cgroup moves into the leaf,
   as docker-in-docker's entrypoint does, and memory is enabled for its children.

Whatever was done is said in `how`, which the sweep and capacity records keep. When nothing works
there is no cgroup, and `reason` says why and what the user can do.
"""

from __future__ import annotations

import contextlib
import errno
import os
from dataclasses import dataclass
from pathlib import Path

LEAF = "memrun-leaf"  # the leaf memrun moves itself (or a container's processes) into
SUBTREE = "memrun"  # the subtree root makes at the top of the host's hierarchy
DELEGATE_HINT = "systemd-run --user --scope -p Delegate=yes memrun …"


@dataclass(frozen=True)
class Placement:
    """The parent cgroup runs are made under, how it was found or made, or why there is none."""

    version: str | None  # "v1", "v2", or None
    parent: Path | None
    how: str  # what was found or done (recorded with every sweep)
    reason: str | None = None  # why there is no cgroup, when version is None

    def as_tuple(self) -> tuple[str | None, Path | None, str | None]:
        return self.version, self.parent, self.reason


def _words(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()


def _pids(cgroup: Path) -> list[int]:
    try:
        return [int(x) for x in (cgroup / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _enable_memory(cgroup: Path) -> OSError | None:
    try:
        (cgroup / "cgroup.subtree_control").write_text("+memory")
    except OSError as e:
        return e
    return None


def _move(pid: int, cgroup: Path) -> None:
    """Move pid into cgroup; one that ended meanwhile or will not move is left to the caller's
    next look at what is still there."""
    with contextlib.suppress(OSError):
        (cgroup / "cgroup.procs").write_text(str(pid))


def _is_namespace_root(mount: Path) -> bool:
    """Whether the mount shows a cgroup namespace's root rather than the host's root cgroup: every
    non-root cgroup has a cgroup.type file, the real root has none."""
    return (mount / "cgroup.type").exists()


def _into_leaf(own: Path) -> OSError | None:
    """Move every process of own into own/LEAF (made if missing), then enable memory for own's
    children. Only called when those processes are memrun alone, or a container's own."""
    leaf = own / LEAF
    try:
        leaf.mkdir(exist_ok=True)
    except OSError as e:
        return e
    for _ in range(20):  # a process may fork while the others move: until none is left
        left = _pids(own)
        if not left:
            break
        for pid in left:
            _move(pid, leaf)
    return _enable_memory(own)


def v2(mount: Path, own_path: str, *, act: bool = True) -> Placement:
    """The placement on a cgroup v2 mount, for a process whose cgroup is own_path in it.

    act=False only says what would be done (memrun doctor); nothing is moved or made.
    """
    own = mount / own_path.lstrip("/")
    if own.name == LEAF and "memory" in _words(own.parent / "cgroup.subtree_control"):
        return Placement("v2", own.parent, f"beside memrun's leaf {own} (made by an earlier memrun)")
    if "memory" in _words(own / "cgroup.subtree_control"):
        return Placement("v2", own, f"{own}, which delegates memory to its children")
    if "memory" in _words(own / "cgroup.controllers"):
        if not act:
            tried: OSError | None = OSError(errno.EBUSY, "not tried") if _pids(own) else None
        else:
            tried = _enable_memory(own)
        if tried is None:
            return Placement("v2", own, f"{own}: enabled memory for its children")
        pids = _pids(own)
        alone = pids == [os.getpid()]
        if alone and os.access(own / "cgroup.procs", os.W_OK) and os.access(own, os.W_OK):
            how = f"moved memrun, the only process in {own}, into {own / LEAF}; memory enabled for {own}"
            if not act:
                return Placement("v2", own, "would have " + how)
            if (e := _into_leaf(own)) is None:
                return Placement("v2", own, how)
            tried = e
    else:
        tried = None
    if os.geteuid() == 0:
        placed = _as_root(mount, own, act)
        if isinstance(placed, Placement):
            return placed
        tried = placed or tried
    why = f" ({tried.strerror})" if tried is not None and tried.strerror else ""
    if os.geteuid() == 0:
        hint = "make a cgroup whose children get memory and run memrun in it"
    else:
        hint = f"run memrun in a delegated cgroup of your own: {DELEGATE_HINT}"
    return Placement(
        None,
        None,
        "",
        f"{own} holds other processes and does not delegate memory to its children{why}; {hint}",
    )


def _as_root(mount: Path, own: Path, act: bool) -> Placement | OSError | None:
    """What root may still do on a v2 mount when its own cgroup does not delegate memory: make
    memrun's subtree under the root cgroup, or (a container's namespace root) move the container's
    processes into a leaf. A Placement when that worked (or would, with act=False), else the
    error that stopped it (None when neither applies)."""
    tried: OSError | None = None
    if not _is_namespace_root(mount):
        subtree = mount / SUBTREE
        how = f"made {subtree}: {own} holds other processes and does not delegate memory"
        if not act:
            return Placement("v2", subtree, "would have " + how)
        root_ok = "memory" in _words(mount / "cgroup.subtree_control") or _enable_memory(mount) is None
        try:
            subtree.mkdir(exist_ok=True)
        except OSError as e:
            return Placement(None, None, "", f"cannot make {subtree}: {e.strerror}")
        if root_ok and (e := _enable_memory(subtree)) is None:
            return Placement("v2", subtree, how)
        tried = e if root_ok else OSError(errno.EPERM, "cannot enable memory in the root cgroup")
    elif own == mount:
        pids = _pids(own)
        how = (
            f"moved the {len(pids)} processes of this container's cgroup into {own / LEAF}; "
            f"memory enabled for {own}"
        )
        if not act:
            return Placement("v2", own, "would have " + how)
        if (e := _into_leaf(own)) is None:
            return Placement("v2", own, how)
        tried = e
    return tried
