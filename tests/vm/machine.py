"""The cgroup v2 kernel the tests boot: Debian's 6.1, through memrun's own VM code (runner.vm),
the same that `memrun sweep --kernel` uses. The host this suite was written on has cgroup v1,
while most users have v2, so everything that touches cgroups is also run there."""

from __future__ import annotations

import subprocess
from pathlib import Path

from runner.paths import BUILD_DIR
from runner.vm import VmError, boot, kernels

VM_DIR = BUILD_DIR / "vm"
LINE = "6.1"  # Debian 12's own kernel line
VmUnavailable = VmError


def missing_tools() -> list[str]:
    return boot.missing_tools()


def kernel() -> kernels.Kernel:
    package = kernels.resolve(LINE)
    assert package is not None
    return kernels.fetch(package)


def boot_guest(
    command: str, *, share: Path, memory: int = 2 << 30, cpus: int = 2, timeout: float = 1500
) -> subprocess.CompletedProcess[str]:
    """Run command (a shell line) as root in a VM of the kernel; share is the one host folder the
    guest may write to. Returns the VM's CompletedProcess (the guest's output is its stdout)."""
    k = kernel()
    kvm = boot.kvm_usable(k.image, k.release, log=print)
    return boot.run(
        boot.Guest(k.image, k.release, memory, cpus, kvm, share), command, timeout=timeout, capture=True
    )
