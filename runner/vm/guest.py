"""A sweep inside a guest: the user's own sweep options, run there as root with the guest's
limits raised, its runs joined into the host's results under `<label>@<release>`.

The guest's memrun is this checkout's, on the host's filesystem (read-only there): the host
builds first, the guest only runs. Its lock and limits journal live in the guest's /run; its
results go to a folder the host shares with it, and are joined into the host's results
directory (runner.results.merge) once it is done, so an interrupted guest adds nothing half-way.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from runner.paths import BUILD_DIR
from runner.results import ResultsDir
from runner.results.merge import Merged, merge
from runner.vm import boot, kernels

# Options of `memrun sweep` the guest's command sets itself (True: the option takes a value).
OWN = {"--kernel": True, "--out": True, "--label": True, "--wait": False, "--raise-limits": False}
PASSED_ENV = ("MEMRUN_TASKS", "MEMRUN_BUILD")  # where the tasks and builds are, if not the default


def guest_args(argv: list[str]) -> list[str]:
    """The sweep's own arguments (after `sweep`) without the options the guest sets itself."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in OWN:
            skip = OWN[name] and "=" not in arg
            continue
        out.append(arg)
    return out


@dataclass(frozen=True)
class GuestSweep:
    """What one kernel's guest sweep did."""

    package: str
    release: str
    label: str
    kvm: bool
    wall_s: float
    merged: Merged


def sweep(
    spec: str,
    argv: list[str],
    out: ResultsDir,
    label: str,
    memory: int,
    log: Callable[[str], None],
) -> GuestSweep:
    """Run `memrun sweep ARGV` in a guest of the kernel `spec` names (not "host"), with the memory
    given (the host's cap) and the host's CPUs, and join its runs into OUT labelled
    `<label>@<release>`. VmError when the kernel cannot be had or the guest ran nothing."""
    if need := boot.missing_tools():
        raise boot.VmError(f"--kernel needs {', '.join(need)} (memrun setup installs them)")
    package = kernels.resolve(spec)
    if package is None:
        raise ValueError("the host's own kernel needs no guest")
    kernel = kernels.fetch(package)
    kvm = boot.kvm_usable(kernel.image, kernel.release, log)
    share = BUILD_DIR / "vm" / "share" / f"{kernel.release}-{os.getpid()}"
    shutil.rmtree(share, ignore_errors=True)
    share.mkdir(parents=True)
    results = share / "results"
    guest_label = f"{label}@{kernel.release}"
    env = {
        "HOME": "/root",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),  # the tools the host's builds found
        "MEMRUN_IN_VM": "1",
        "MEMRUN_LOCK": "/run/memrun-measure.lock",  # the guest's own, not the host's
        "MEMRUN_STATE": "/run/memrun-state",
        "PYTHONDONTWRITEBYTECODE": "1",
        **{k: os.environ[k] for k in PASSED_ENV if k in os.environ},
    }
    # the host's interpreter, as the host ran it: a build stamp names the tools' paths, and the
    # guest (on a read-only root) must find every build up to date
    sweep_argv = [sys.executable, "-m", "runner", "sweep", *guest_args(argv)]
    sweep_argv += ["--raise-limits", "--label", guest_label]
    command = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command += " " + shlex.join([*sweep_argv, "--out", str(results)])
    cpus = os.cpu_count() or 1
    how = "KVM" if kvm else "TCG emulation"
    log(f"memrun: booting {package} ({how}, {memory >> 20:,} MiB, {cpus} CPUs); the sweep runs inside")
    t0 = time.monotonic()
    done = boot.run(boot.Guest(kernel.image, kernel.release, memory, cpus, kvm, share), command)
    wall = time.monotonic() - t0
    if not (results / "runs.jsonl").exists():
        shutil.rmtree(share, ignore_errors=True)
        raise boot.VmError(
            f"the guest of {kernel.release} ran no sweep (exit {done.returncode}); see its output above"
        )
    merged = merge(out, [results])
    shutil.rmtree(share, ignore_errors=True)
    return GuestSweep(package, kernel.release, guest_label, kvm, wall, merged)
