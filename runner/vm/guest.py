"""A measuring command inside a guest: the user's own `sweep` or `capacity`, run there as root
with the guest's limits raised, its runs joined into the host's results under
`<label>@<release>`.

The guest's memrun is this checkout's, on the host's filesystem (read-only there): the host
builds first, the guest only runs. Its lock and limits journal live in the guest's /run. Its
results go to a folder the host shares with it, which starts as a copy of the host's results
directory, so that the guest sees what is stored already (`--resume`, a capacity's evidence from
earlier searches of the same label); once the guest is done the folder is joined into the host's
directory (runner.results.merge: nothing is added twice), so an interrupted guest adds nothing
half-way.
"""

from __future__ import annotations

import compileall
import os
import shlex
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import runner
from runner import hostinfo
from runner.paths import BUILD_DIR
from runner.results import ResultsDir
from runner.results.merge import Merged, merge
from runner.results.store import CAPACITY, RUNS, SWEEPS, TIMELINES
from runner.tasks import registry
from runner.vm import boot, kernels

# Options of a measuring command the guest's command sets itself (True: the option takes a value).
# capacity's --from is left out too: the guest's OUT starts as a copy of the host's.
OWN = {
    "--kernel": True,
    "--out": True,
    "--label": True,
    "--from": True,
    "--wait": False,
    "--raise-limits": False,
}
PASSED_ENV = ("MEMRUN_TASKS", "MEMRUN_BUILD")  # where the tasks and builds are, if not the default
MEASURING = ("sweep", "capacity")  # the commands a guest runs: both take --out, --label, --raise-limits
PACKAGE = Path(runner.__file__).parent  # memrun's own modules, which the guest's memrun imports


def memory_for(cap: int | None) -> int:
    """A guest's memory: the cap given, else the largest power of two within the host's RAM less
    the cap's reserve (1 GiB or 10 %). The guest's RAM is part of the machine its runs record,
    and a label holds one machine: a default that followed MemAvailable (even rounded to a power
    of two) made the next `--kernel` call of the same label (a --resume, a --check, a bisect's
    next version) another machine once the host's free memory crossed a power of two (8 GiB for
    one boot, 16 GiB for the next, beside a test suite). The guest's own runs are capped within
    its RAM; qemu takes the host's memory only as the guest touches it."""
    from runner.limits.host import CAP_RESERVE_BYTES, CAP_RESERVE_SHARE, int_value, read_limits

    if cap:
        return cap
    total = int_value(read_limits(), "mem_total")
    if not total:
        return 2 << 30
    room = max(total - max(CAP_RESERVE_BYTES, int(CAP_RESERVE_SHARE * total)), 64 << 20)
    return 1 << (room.bit_length() - 1)


def guest_args(argv: list[str]) -> list[str]:
    """A command's arguments as typed, without the options the guest sets itself."""
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
class GuestRun:
    """What one kernel's guest did."""

    package: str
    release: str
    label: str
    kvm: bool
    wall_s: float
    returncode: int
    merged: Merged


def run(
    spec: str,
    command: str,
    args: list[str],
    out: ResultsDir,
    label: str,
    memory: int,
    log: Callable[[str], None],
) -> GuestRun:
    """Run `memrun COMMAND ARGS` in a guest of the kernel `spec` names (not "host"), with the
    memory given (the host's cap) and the host's CPUs, and join its runs into OUT labelled
    `<label>@<release>`. ARGS must not hold --out, --label or --raise-limits: the guest sets them.
    VmError when the kernel cannot be had or the guest stored nothing."""
    if command not in MEASURING:
        raise ValueError(f"a guest runs {' or '.join(MEASURING)}, not {command!r}")
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
    _seed(out, results)
    registry.snapshot(share / "listings.json")  # the versions the host chose, for a guest offline
    guest_label = f"{label}@{kernel.release}"
    env = {
        "HOME": "/root",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),  # the tools the host's builds found
        "MEMRUN_IN_VM": "1",
        "MEMRUN_LOCK": "/run/memrun-measure.lock",  # the guest's own, not the host's
        "MEMRUN_STATE": "/run/memrun-state",
        "PYTHONDONTWRITEBYTECODE": "1",
        **({hostinfo.REVISION_ENV: rev} if (rev := hostinfo.git_revision()) else {}),
        registry.LISTINGS_ENV: str(share / "listings.json"),
        **{k: os.environ[k] for k in PASSED_ENV if k in os.environ},
    }
    # the host's interpreter, as the host ran it: a build stamp names the tools' paths, and the
    # guest (on a read-only root) must find every build up to date
    argv = [sys.executable, "-m", "runner", command, *args]
    argv += ["--raise-limits", "--label", guest_label, "--out", str(results)]
    line = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + shlex.join(argv)
    cpus = os.cpu_count() or 1
    how = "KVM" if kvm else "TCG emulation"
    log(f"memrun: booting {package} ({how}, {memory >> 20:,} MiB, {cpus} CPUs); `{command}` runs inside")
    guest = boot.Guest(kernel.image, kernel.release, memory, cpus, kvm, share)
    compile_package(PACKAGE)
    build_helpers()
    before = _stored(results)
    for attempt in (1, 2):
        console = boot.console_file(kernel.release, attempt)
        t0 = time.monotonic()
        done = boot.run(guest, line, console=console)
        wall = time.monotonic() - t0
        stored = _stored(results) != before
        if stored or done.returncode != boot.NO_STATUS or attempt == 2:
            break
        # The guest ended without its command's exit status and stored nothing: it died booting
        # (a kernel panic, a failed init), before any cell ran. Nothing was measured, so one
        # more boot loses nothing; a second such death is an error.
        log(
            f"memrun: the guest of {kernel.release} stopped before `{command}` stored anything "
            f"(no exit status; its console: {console}); booting it once more"
        )
    if not stored:
        shutil.rmtree(share, ignore_errors=True)
        last = boot.tail(console)
        raise boot.VmError(
            f"the guest of {kernel.release} ran no {command} (exit {done.returncode}); its console, "
            f"in {console}, ends:\n{last}"
        )
    merged = merge(out, [results])
    shutil.rmtree(share, ignore_errors=True)
    return GuestRun(package, kernel.release, guest_label, kvm, wall, done.returncode, merged)


def compile_package(package: Path) -> None:
    """memrun's bytecode, written here before the boot: the guest reads this checkout read-only
    and cannot keep what it compiles, so each memrun start there compiled every module it
    imported from source again (half of a start under TCG: 13 s against 7 s measured). Stale or
    missing files only; a package this user cannot write is left as it is."""
    compileall.compile_dir(package, quiet=2)


def build_helpers() -> None:
    """memrun's own C helpers (the launcher every run starts from, the futex-hash preload, the
    load clients of the connections and http workloads), built here before the boot, in the build
    folder the guest's memrun uses. A guest that builds one compiles it under TCG on every boot,
    as its writes to an overlaid folder die with it (a 1-cell sweep of the fake: 17 s from its
    start to its end in the guest, 8 s with the launcher built here), and a build folder on the
    read-only root cannot be written there at all. Missing or stale ones only."""
    from runner.limits.futex import ensure_preload
    from runner.measure.launcher import ensure_launcher
    from runner.workloads.connections import client as connections
    from runner.workloads.web import client as web

    for build in (ensure_launcher, ensure_preload, connections.ensure_client, web.ensure_client):
        build()


def _seed(out: ResultsDir, results) -> None:  # type: ignore[no-untyped-def]
    """The guest's results directory starts as a copy of OUT's files."""
    results.mkdir()
    for name in (RUNS, SWEEPS, TIMELINES, CAPACITY):
        if (out.path / name).exists():
            shutil.copyfile(out.path / name, results / name)


def _stored(results) -> int:  # type: ignore[no-untyped-def]
    """How much the guest's records of its commands hold: every sweep and search writes its start
    there, even one that finds nothing left to run."""
    return (results / SWEEPS).stat().st_size if (results / SWEEPS).exists() else 0
