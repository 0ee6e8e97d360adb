"""memrun on cgroup v2 kernels: the guest suite (tests/vm/guest) run inside guests.

Most of it runs under user-mode Linux (tests/vm/uml.py: Debian's 6.1 as a process, on the host's
CPU; the whole module in 215 s and 103 s of CPU alone, where qemu's TCG took most of a core
for 364 s alone and 598 s beside the `--kernel` tests); what only the real x86-64 kernel can show
(test_x86_kernel.py: its kernel stacks' size) runs in a qemu guest of Debian's own 6.1, through
memrun's VM code. Each guest module is one boot, and each guest test is reported here as a test of
its own, under its own name: it passes only if it passed in its guest. A guest test that failed,
was skipped or never ran (a guest that could not start, a guest suite that collected nothing) fails
here. The list of guest tests is read from the guest modules themselves, so a new guest test gets
its host-side report without a line changing here. The guest's figures are printed beside the same
probe measured on this host's cgroup, so a reader can hold v2 against v1.

What the guests' tests need built (memrun's launcher and load clients, the fake task program,
memrun's own bytecode) is built here first, on the host, so that no guest test compiles anything.
"""

from __future__ import annotations

import ast
import json
import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from runner import hostinfo
from runner.measure import cgroups
from runner.measure.core import measure
from tests.support.cli import FIXTURE_TASKS, ROOT
from tests.support.process import probe, require
from tests.vm import machine, uml

pytestmark = [pytest.mark.serial, pytest.mark.guest]

GUEST = Path(__file__).parent / "guest"
REAL_KERNEL = ("test_x86_kernel.py",)  # the guest modules booted in qemu; the others under UML


def guest_tests() -> list[tuple[str, str]]:
    """(module, test function) of the guest modules, read from their source (they are not
    collected on the host: they would change the host's cgroups)."""
    names = []
    for module in sorted(GUEST.glob("test_*.py")):
        tree = ast.parse(module.read_text())
        names += [
            (module.name, f.name)
            for f in tree.body
            if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")
        ]
    return names


@dataclass(frozen=True)
class GuestSuite:
    """What the one boot left: each guest test's junit case by name, and the guest's figures."""

    cases: dict[str, list[ET.Element]]  # a test's name (parameters stripped) -> its cases
    figures: dict[str, object]
    returncode: int
    console: str


def _prebuild(share: Path) -> Path:
    """What the guest's memrun commands would otherwise build under TCG, once per test: memrun's
    C helpers (runner.vm.guest.build_helpers: the launcher, the load clients) in the host's
    build/ (for measure() in the guest's pytest), and a build folder of the fixture tasks (the
    fake, its server) that each guest test copies."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "runner", "tests"], cwd=ROOT, check=True)
    build = share / "build"
    tools = "from runner.vm.guest import build_helpers\nbuild_helpers()\n"
    fake = (
        "from runner import tasks\n"
        f"assert not tasks.build_all(list(tasks.load_all({str(FIXTURE_TASKS)!r}).values()), print)\n"
    )
    # the tools in the host's build/ (written atomically: a test beside this one may build them
    # too), then the tools and the fake in the folder the guest tests copy
    for code, env in ((tools, {}), (tools + fake, {"MEMRUN_BUILD": str(build)})):
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env}, check=True)
    return build


def _boot(module: str) -> GuestSuite:
    """One guest module's suite in one boot: under UML, or in qemu for REAL_KERNEL."""
    real = module in REAL_KERNEL
    need = machine.missing_tools() if real else uml.missing_tools()
    require(not need, "the cgroup v2 guest: " + ", ".join(need))
    require(os.geteuid() == 0, "root (the guest's root is the host's)")
    share = machine.VM_DIR / "out" / module.removesuffix(".py")
    share.mkdir(parents=True, exist_ok=True)
    for old in share.iterdir():  # what an earlier boot left, files and folders
        shutil.rmtree(old) if old.is_dir() and not old.is_symlink() else old.unlink()
    env = {
        "MEMRUN_IN_VM": "1",
        "MEMRUN_VM_OUT": str(share),
        "MEMRUN_VM_PREBUILT": str(_prebuild(share)),
        "MEMRUN_LOCK": "/run/memrun-measure.lock",  # the guest's own, not the host's /tmp
        "MEMRUN_STATE": "/run/memrun-state",
        "PYTHONDONTWRITEBYTECODE": "1",
        # the host's answer, as runner.vm.guest gives its guests: git in a TCG guest takes ~10 s a call
        **({hostinfo.REVISION_ENV: rev} if (rev := hostinfo.git_revision()) else {}),
    }
    pytest_argv = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        "-q",
        "-rA",
        "--durations=0",
        f"--junitxml={share / 'junit.xml'}",
        str(GUEST / module),
    ]
    command = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + shlex.join(pytest_argv)
    try:
        vm = machine.boot_guest(command, share=share) if real else uml.run(command, share=share)
    except (machine.VmUnavailable, uml.UmlUnavailable) as e:
        require(False, f"the cgroup v2 guest: {e}")
        raise
    print(vm.stdout[-20000:])
    print(vm.stderr[-3000:], file=sys.stderr)
    cases: dict[str, list[ET.Element]] = {}
    junit = share / "junit.xml"
    if junit.exists():
        for case in ET.parse(junit).getroot().iter("testcase"):
            cases.setdefault(case.get("name", "").split("[")[0], []).append(case)
    figures_path = share / "figures.json"
    figures = json.loads(figures_path.read_text()) if figures_path.exists() else {}
    return GuestSuite(cases, figures, vm.returncode, (vm.stdout or "")[-3000:])


@pytest.fixture(scope="module")
def guests() -> Callable[[str], GuestSuite]:
    """A guest module's suite, booted the first time a test asks for it."""
    booted: dict[str, GuestSuite] = {}

    def suite(module: str) -> GuestSuite:
        if module not in booted:
            booted[module] = _boot(module)
        return booted[module]

    return suite


@pytest.mark.parametrize(("module", "name"), guest_tests(), ids=[name for _, name in guest_tests()])
def test_in_the_guest(guests, module, name):
    """One guest test's outcome, as the guest's pytest recorded it."""
    guest = guests(module)
    cases = guest.cases.get(name)
    assert cases, (
        f"{name} did not run in the guest (its exit {guest.returncode}, {len(guest.cases)} guest tests "
        f"recorded); the guest's output ends:\n{guest.console}"
    )
    for case in cases:
        for outcome in case:
            if outcome.tag in ("failure", "error", "skipped"):
                pytest.fail(f"{outcome.tag} in the guest: {outcome.get('message')}\n{outcome.text or ''}")


def test_the_v2_figure_of_a_known_allocation_matches_this_hosts(guests):
    """The same 64 MiB probe on this host's cgroup (when it has one), beside the guest's v2 figure."""
    figures = guests("test_v2.py").figures
    assert "alloc64_cgroup_peak" in figures, f"the guest stored no figure: {figures}"
    v2 = figures["alloc64_cgroup_peak"]
    assert isinstance(v2, int) and v2 >= 64 << 20, v2
    if cgroups.detect()[0] is not None:
        v1 = measure(probe("alloc.py", 64, 0.5)).cgroup_peak
        assert v1 is not None
        print(f"64 MiB probe: cgroup peak {v2 / 2**20:.1f} MiB on v2 (guest), {v1 / 2**20:.1f} MiB here")
        assert abs(v2 - v1) < max(0.1 * v1, 8 << 20), (v1, v2)
