"""What only the real x86-64 kernel can show, in a qemu guest of Debian's own 6.1 (the rest of the
guest suite runs under user-mode Linux: tests/vm/test_cgroup_v2.py): its kernel stacks' size."""

from __future__ import annotations

import pytest

from runner.measure.core import measure
from tests.vm.guest.layouts import figure

pytestmark = pytest.mark.serial  # the guest suite runs alone in its VM, one test at a time

KiB = 1 << 10


def test_a_threads_kernel_stack_is_attributed_to_kernel_stacks():
    """A known truth on cgroup v2, which counts kernel stacks per cgroup (v1 does not): each thread
    of the C probe costs one kernel stack, 16 KiB on x86-64 (THREAD_SIZE), and `memrun explain`'s
    kernel-stack part per task must say so within 2 %."""
    from runner.analysis import explain
    from runner.results import RunRecord
    from tests.support.cprobe import build

    stacks = build("stacks")
    records = []
    for k in (1, 500):
        r = measure([str(stacks), str(k), "64", "16", "5"], timeout=120)
        assert r.ok and r.hold_split is not None, (r.outcome(), r.stderr_tail)
        records.append(RunRecord(variant="probe", n=k, verdict="valid", sleep_s=5.0, label="vm", result=r))
    found, notes = explain.splits(records)
    assert len(found) == 1 and found[0].cgroup is not None, notes
    kernel = {key: part for key, _, part in found[0].cgroup.parts}
    assert kernel["kernel_stack"] == pytest.approx(16 * KiB, rel=0.02), kernel
    stack = {key: part for key, _, part in found[0].rss.parts}["stack"]
    assert stack == pytest.approx(16 * KiB, rel=0.02)  # and the user stack it touched
    assert found[0].cgroup.explained, (found[0].cgroup.total, found[0].cgroup.measured)
    figure("explain_kernel_stack_per_thread", kernel["kernel_stack"])
    figure("explain_slab_per_thread", kernel["slab"])
    figure("explain_pagetables_per_thread", kernel["pagetables"])
