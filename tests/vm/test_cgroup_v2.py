"""memrun on a real cgroup v2 kernel: the guest suite (tests/vm/guest) run inside a VM.

One boot runs every guest test; this host-side test fails when the VM cannot start, when a guest
test fails, or when a guest test that should have run did not (a guest suite that collected
nothing must not pass). The guest's figures are printed here, beside the same probe measured on
this host's cgroup, so a reader can hold v2 against v1.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from runner.measure import cgroups
from runner.measure.core import measure
from tests.support.process import probe, require
from tests.vm import machine

GUEST = Path(__file__).parent / "guest"
EXPECTED = {
    "test_root_cgroup_measures_a_known_allocation",
    "test_a_tree_and_its_threads_are_charged_with_their_kernel_memory",
    "test_a_run_past_its_cap_is_oom_killed_inside_its_cgroup",
    "test_without_memory_peak_the_peak_is_sampled_and_says_so",
    "test_a_sigkilled_memrun_leaves_a_cgroup_the_next_one_removes",
    "test_the_machine_lock_holds_on_v2",
    "test_from_a_session_scope_runs_are_measured_capped_and_recorded",
    "test_from_a_service_runs_are_measured",
    "test_in_a_container_runs_are_measured",
    "test_capacity_of_a_known_cost_from_a_session_scope",
    "test_connections_from_a_session_scope_charge_server_and_client_apart",
    "test_a_user_in_a_delegated_scope_measures_caps_and_sweeps",
    "test_a_user_without_a_delegated_cgroup_gets_a_refusal_not_a_false_answer",
    "test_a_threads_kernel_stack_is_attributed_to_kernel_stacks",
}


@pytest.mark.slow
def test_guest_suite_passes_on_cgroup_v2(tmp_path):
    need = machine.missing_tools()
    require(not need, "the cgroup v2 VM: " + ", ".join(need))
    require(os.geteuid() == 0, "root (the VM's kernel modules go to /lib/modules)")
    share = machine.VM_DIR / "out"
    share.mkdir(parents=True, exist_ok=True)
    for old in share.iterdir():  # what an earlier boot left, files and folders
        shutil.rmtree(old) if old.is_dir() and not old.is_symlink() else old.unlink()
    env = {
        "MEMRUN_IN_VM": "1",
        "MEMRUN_VM_OUT": str(share),
        "MEMRUN_LOCK": "/run/memrun-measure.lock",  # the guest's own, not the host's /tmp
        "MEMRUN_STATE": "/run/memrun-state",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    pytest_argv = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "-rA",
        f"--junitxml={share / 'junit.xml'}",
        str(GUEST),
    ]
    command = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + shlex.join(pytest_argv)
    try:
        vm = machine.boot_guest(command, share=share)
    except machine.VmUnavailable as e:
        require(False, f"the cgroup v2 VM: {e}")
        return
    print(vm.stdout[-20000:])
    print(vm.stderr[-3000:], file=sys.stderr)
    junit = share / "junit.xml"
    assert junit.exists(), f"the guest suite did not run (VM exit {vm.returncode})"
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    passed = {n for n, c in cases.items() if not list(c)}  # no failure, error or skipped child
    assert set(cases) >= EXPECTED, f"not run in the guest: {sorted(EXPECTED - set(cases))}"
    assert passed >= EXPECTED, f"failed or skipped in the guest: {sorted(EXPECTED - passed)}"

    # The same 64 MiB probe on this host's cgroup, beside the guest's v2 figure.
    figures = json.loads((share / "figures.json").read_text())
    if cgroups.detect()[0] is not None:
        here = measure(probe("alloc.py", 64, 0.5))
        v1 = here.cgroup_peak
        v2 = figures["alloc64_cgroup_peak"]
        print(f"64 MiB probe: cgroup peak {v2 / 2**20:.1f} MiB on v2 (guest), {v1 / 2**20:.1f} MiB here")
        assert v1 is not None and abs(v2 - v1) < max(0.1 * v1, 8 << 20), (v1, v2)
