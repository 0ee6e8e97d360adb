"""The cgroup layouts memrun meets on v2, built by hand in the guest as systemd, a container
engine or a delegating service manager would leave them, and a way to start a command inside one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests.support.cli import FIXTURE_TASKS

CG = Path("/sys/fs/cgroup")
ROOT = Path(__file__).resolve().parents[3]
USER = 1000  # a user with no entry in /etc/passwd is fine for the kernel


def enable_memory_down_to(cgroup: Path) -> None:
    """Make cgroup and its ancestors, with memory enabled for the children of every ancestor
    (what systemd does for its slices). cgroup itself delegates nothing."""
    cgroup.mkdir(parents=True, exist_ok=True)
    for parent in [*reversed(cgroup.relative_to(CG).parents)]:
        (CG / parent / "cgroup.subtree_control").write_text("+memory")


def occupant(cgroup: Path, *, user: int | None = None) -> subprocess.Popen:
    """A long sleep inside cgroup: the login shell of a session, a service's main process."""
    return start(["sleep", "600"], cgroup, user=user)


def start(
    argv: Sequence[str], cgroup: Path, *, user: int | None = None, env: dict[str, str] | None = None, **kw
) -> subprocess.Popen:
    """argv started inside cgroup (joined before exec, as systemd-run does), as user if given."""

    def join() -> None:
        (cgroup / "cgroup.procs").write_text(str(os.getpid()))
        if user is not None:
            os.setgroups([])
            os.setgid(user)
            os.setuid(user)

    return subprocess.Popen(list(argv), preexec_fn=join, env=env, **kw)


def memrun_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "runner", *args]


def memrun_env(tmp: Path, **extra: str) -> dict[str, str]:
    """memrun's environment for a run from tmp: the fixture tasks copied there (the checkout is
    read-only in the guest, and building the fake writes beside its source), state, lock, build."""
    tasks = tmp / "tasks"
    if not tasks.exists():  # not their bytecode: a host process may be writing it as we copy
        shutil.copytree(FIXTURE_TASKS, tasks, ignore=shutil.ignore_patterns("__pycache__"))
    # what the host built for the guest (tests/vm/test_cgroup_v2.py): under TCG a build of the
    # fake and of memrun's launcher takes longer than the test's own runs
    prebuilt = os.environ.get("MEMRUN_VM_PREBUILT")
    if prebuilt and not (tmp / "build").exists():
        shutil.copytree(prebuilt, tmp / "build", symlinks=True)
    return {
        **os.environ,
        "MEMRUN_TASKS": str(tasks),
        "MEMRUN_BUILD": str(tmp / "build"),
        "MEMRUN_STATE": str(tmp / "state"),
        "MEMRUN_LOCK": str(tmp / "lock"),
        "HOME": str(tmp),
        **extra,
    }


def run_memrun(cgroup: Path, tmp: Path, *args: str, user: int | None = None, timeout: float = 600):
    """memrun ARGS started inside cgroup; (exit code, stdout, stderr)."""
    p = start(
        memrun_argv(*args),
        cgroup,
        user=user,
        env=memrun_env(tmp),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def delegate(cgroup: Path, user: int) -> None:
    """Hand cgroup to user as systemd's Delegate=yes does: the directory and the files that
    let the user make children, move processes and enable controllers below it."""
    for path in (
        cgroup,
        cgroup / "cgroup.procs",
        cgroup / "cgroup.subtree_control",
        cgroup / "cgroup.threads",
    ):
        os.chown(path, user, user)


def for_user(user: int) -> Path:
    """A folder of the user's own for its memrun to work in, after making what the user needs
    readable: the interpreter under /root (the guest's /root is an overlay, the host's is
    untouched). pytest's tmp_path lies under a root-only folder, hence /tmp."""
    Path("/root").chmod(0o755)
    home = Path(tempfile.mkdtemp(prefix=f"memrun-user-{user}-", dir="/tmp"))
    memrun_env(home)  # copies the tasks in while still root
    for dirpath, dirnames, filenames in os.walk(home):
        for name in [*dirnames, *filenames]:
            os.chown(os.path.join(dirpath, name), user, user)
    os.chown(home, user, user)
    home.chmod(0o755)
    return home


def figure(name: str, value: object) -> None:
    """Keep a figure for the host side (it prints them beside its own v1 figures)."""
    path = Path(os.environ.get("MEMRUN_VM_OUT", "/tmp")) / "figures.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[name] = value
    path.write_text(json.dumps(data, indent=1))
