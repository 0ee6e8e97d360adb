"""Debian kernel packages by name: which one a `--kernel` means, and its image unpacked.

`6.1` or `6.12` is the newest image of that line apt knows (the plain amd64 flavour, not cloud or
rt); a full package name (`linux-image-6.12.117+deb12-amd64`) is taken as it is. The package is
fetched with `apt-get download` (never a script from elsewhere), unpacked under build/vm/, and
its modules copied to /lib/modules/<release>, where the guest's initramfs looks for them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from runner.paths import BUILD_DIR
from runner.vm.boot import VmError

VM_DIR = BUILD_DIR / "vm"
HOST = "host"
LINE = re.compile(r"^\d+\.\d+$")
PACKAGE = re.compile(r"^linux-image-(\d+\.\d+)[.\d]*[-+][\w.+-]*-amd64$")


@dataclass(frozen=True)
class Kernel:
    package: str  # linux-image-6.12.117+deb12-amd64
    release: str  # 6.12.117+deb12-amd64: uname -r in the guest
    image: Path  # its vmlinuz


def _run(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True)


def _version_key(name: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", name)]


def images(line: str) -> list[str]:
    """The plain amd64 image packages apt knows of one line ("6.12"), oldest first."""
    out = _run(["apt-cache", "search", "--names-only", f"^linux-image-{re.escape(line)}[.-]"]).stdout
    names = [row.split(" - ", 1)[0].strip() for row in out.splitlines()]
    plain = [n for n in names if n.endswith("-amd64") and not re.search(r"-(cloud|rt)-amd64$", n)]
    plain = [n for n in plain if not n.endswith("-unsigned") and "-dbg" not in n]
    return sorted(plain, key=_version_key)


def resolve(spec: str) -> str | None:
    """The package a --kernel names; None for "host" (the host's own kernel, no VM). VmError
    when apt knows no such package (one line, with the lines it does know)."""
    spec = spec.strip()
    if spec == HOST:
        return None
    if LINE.match(spec):
        found = images(spec)
        if not found:
            raise VmError(f"--kernel {spec}: apt knows no linux-image-{spec}.*-amd64 ({_known()})")
        return found[-1]
    if not spec.startswith("linux-image-"):
        raise VmError(f"--kernel {spec}: give a line (6.1, 6.12), a linux-image-… package or 'host'")
    shown = _run(["apt-cache", "show", "--no-all-versions", spec])
    if shown.returncode != 0 or not shown.stdout.strip():
        raise VmError(f"--kernel {spec}: apt knows no such package ({_known()})")
    return spec


def _known() -> str:
    """The kernel lines apt knows, for an error: "apt knows 6.1, 6.12"."""
    out = _run(["apt-cache", "search", "--names-only", r"^linux-image-[0-9]"]).stdout
    lines = sorted(
        {m.group(1) for row in out.splitlines() if (m := re.match(r"linux-image-(\d+\.\d+)", row))},
        key=_version_key,
    )
    return f"apt knows {', '.join(lines)}" if lines else "apt knows none: apt-get update?"


@contextlib.contextmanager
def _alone(package: str) -> Iterator[None]:
    """One fetch of a package at a time on this machine (two memrun commands, or two tests, may
    want the same kernel at once): the second waits and finds it unpacked."""
    VM_DIR.mkdir(parents=True, exist_ok=True)
    with open(VM_DIR / f".{package}.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def fetch(package: str) -> Kernel:
    """The package's kernel, downloaded and unpacked once (about 70 MB), its modules in place."""
    with _alone(package):
        return _fetch(package)


def _fetch(package: str) -> Kernel:
    root = VM_DIR / package / "root"
    found = sorted(root.glob("boot/vmlinuz-*"))
    if not found:
        if not shutil.which("apt-get"):
            raise VmError("no apt-get: the VM's kernel comes from Debian's linux-image packages")
        where = VM_DIR / package
        where.mkdir(parents=True, exist_ok=True)
        got = _run(["apt-get", "download", package], cwd=where)
        debs = sorted(where.glob(f"{package}_*.deb"))
        if not debs:
            raise VmError(f"apt-get download {package} failed: {got.stderr.strip()[-300:]}")
        unpacked = _run(["dpkg-deb", "-x", str(debs[-1]), str(root)])
        if unpacked.returncode != 0:
            raise VmError(f"dpkg-deb -x {debs[-1].name} failed: {unpacked.stderr.strip()[-300:]}")
        debs[-1].unlink()
        found = sorted(root.glob("boot/vmlinuz-*"))
        if not found:
            raise VmError(f"{package} holds no boot/vmlinuz-*")
    image = found[-1]
    release = image.name.removeprefix("vmlinuz-")
    modules = Path("/lib/modules") / release
    if not modules.exists():
        if os.geteuid() != 0:
            raise VmError(f"{modules} is missing and only root can copy the guest's modules there")
        shutil.copytree(root / "lib" / "modules" / release, modules, symlinks=True)
    return Kernel(package, release, image)
