"""The cgroup v2 kernel the tests boot: Debian's 6.1, through memrun's own VM code (runner.vm),
the same that `memrun sweep --kernel` uses. The host this suite was written on has cgroup v1,
while most users have v2, so everything that touches cgroups is also run there."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from runner.paths import BUILD_DIR
from runner.vm import VmError, boot, kernels

VM_DIR = BUILD_DIR / "vm"
LINE = "6.1"  # Debian 12's own kernel line
LINES = ("6.1", "6.12")  # the lines tests/vm/test_kernel.py boots through `memrun ... --kernel`
VmUnavailable = VmError


def missing_tools() -> list[str]:
    return boot.missing_tools()


def kernel(line: str = LINE) -> kernels.Kernel:
    """The newest image of the line, fetched into the checkout's build/vm once, and whether KVM
    boots it here found out once (build/vm/kvm.json): a probe boot that hangs takes 90 s."""
    package = kernels.resolve(line)
    assert package is not None
    k = kernels.fetch(package)
    boot.kvm_usable(k.image, k.release, log=print)
    return k


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


def seed(build: Path) -> None:
    """A test's own MEMRUN_BUILD given the checkout's kernels (fetched once: about 70 MB each)
    and its KVM answer, so that a `memrun … --kernel` there boots at once. The fetching and the
    probe are memrun's own (kernel() above); what a test of `--kernel` checks is the rest."""
    vm = build / "vm"
    vm.mkdir(parents=True, exist_ok=True)
    for line in LINES:
        k = kernel(line)
        (vm / k.package).symlink_to(VM_DIR / k.package, target_is_directory=True)
    if boot.KVM_CACHE.exists():  # no cache: no usable /dev/kvm here, nothing to probe
        shutil.copyfile(boot.KVM_CACHE, vm / boot.KVM_CACHE.name)
