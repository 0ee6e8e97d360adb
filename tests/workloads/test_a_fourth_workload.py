"""A fourth workload with a parameter of its own, defined here inside the test: tasks that each
hold a chunk of `--chunk-kib` KiB. Registered, it runs through the real sweep and the real capacity
search on a fake program of known cost, with no runner module edited: the parameter's value is
stored with every run and probe, a sweep of another value runs other cells, and the value the
search was given is the one its probes held (its answer is what that chunk size fits)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runner import tasks
from runner.campaign import CampaignSettings
from runner.capacity import CapacityOptions, CapacityProgress, run_capacity
from runner.execute import Launch, default_timeout
from runner.inputs import SleepSpec
from runner.judge import verdict
from runner.measure import cgroups
from runner.results import ResultsDir, load_records, load_sweeps
from runner.sweep import SweepOptions, run_sweep
from runner.workload import Parameter, Words, Workload
from tests.support.process import require
from tests.support.workloads import holder, registered

MIB = 1 << 20
BUDGET = 48 * MIB  # room for ~600 chunks of 64 KiB beside the interpreter (~2,400 of 16 KiB)

PROGRAM = """
import sys, time
n, sleep, kib = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
held = [bytearray(b"\\x01" * kib * 1024) for _ in range(n)]
print(f"ready {n}", flush=True)
time.sleep(sleep)
"""


def kib(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(f"must be at least 1 KiB, got {value}")
    return value


class Chunks(Workload):
    """N chunks held at once, each of the size the user chose: its program's `{chunk_kib}`."""

    name = "chunks"
    words = Words("chunks", "chunk", "chunk", "held chunks", "hold", "ready", "against N held chunks")
    placeholders = ("chunk_kib",)
    parameters = (Parameter("chunk_kib", "16", "KiB each task holds", kib),)

    def execute(self, variant: Any, n: int, sleep: float, settings: Any) -> Any:
        """Run as a sleep program is, with the chosen chunk size filled into its command."""
        chosen = {**self.parse_parameters({}), **(settings.params or {})}
        launch = Launch.of(variant, n, sleep, settings, chunk_kib=chosen["chunk_kib"])
        timeout = launch.timeout(default_timeout(sleep))
        result = launch.run(timeout)
        judged = verdict.classify(
            result, n, sleep, variant.per_task, failures=variant.failures, workload=self
        )
        return launch.execution(timeout, result, judged)


@pytest.fixture
def chunks() -> Iterator[Workload]:
    with registered(Chunks()) as workload:
        yield workload


def _variant(tmp_path: Path) -> tasks.Variant:
    what = "N chunks of CHUNK_KIB KiB held for SLEEP seconds"
    return holder(tmp_path, "chunker", PROGRAM, "chunks", what, plain=["1"], under=["{chunk_kib}"])


def _per_chunk_kib(records: list[Any]) -> float:
    """(peak RSS at 400 - at 1) / 399, in KiB: what one more chunk cost."""
    by_n = {r.n: r.result.peak_rss for r in records}
    return (by_n[400] - by_n[1]) / 399 / 1024


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_workload_with_its_own_parameter_runs_through_sweep_and_capacity(chunks, tmp_path):
    require(cgroups.detect()[0] is not None, "a memory cgroup controller")
    variant = _variant(tmp_path)
    out = tmp_path / "results"

    def sweep(**params: int) -> dict[str, Any]:
        campaign = CampaignSettings([variant], ResultsDir(out), workload=chunks, params=params, resume=True)
        opts = SweepOptions(campaign, [1, 400], SleepSpec(1.0), 1)
        return run_sweep(opts)

    assert sweep()["cells_run"] == 2  # the parameter's default, 16 KiB
    assert sweep(chunk_kib=64)["cells_run"] == 2  # another value: other cells, none resumed
    assert sweep(chunk_kib=64)["cells_run"] == 0  # the same value: its cells are done
    runs = [r for _, r in load_records([out])]
    assert {r.workload for r in runs} == {"chunks"} and {r.verdict for r in runs} == {"valid"}
    by_kib = {k: [r for r in runs if r.params == {"chunk_kib": k}] for k in (16, 64)}
    assert [len(v) for v in by_kib.values()] == [2, 2], [r.params for r in runs]
    for k, records in by_kib.items():  # what the program held is what the record says it was given
        assert abs(_per_chunk_kib(records) - k) / k < 0.1, (k, _per_chunk_kib(records))
    sweeps = load_sweeps([out])  # each one's start record (and end)
    assert [s["params"] for s in sweeps] == [{"chunk_kib": 16}, {"chunk_kib": 64}, {"chunk_kib": 64}]

    # capacity takes the parameter as the sweep does, stores it with every probe and its start
    # record, and its probes hold that chunk size: the answer is what 64 KiB chunks fit
    campaign = CampaignSettings(
        [variant.under(chunks)], ResultsDir(out), workload=chunks, params={"chunk_kib": 64}
    )
    opts = CapacityOptions(campaign, [BUDGET], history=by_kib[64])
    (answer,) = run_capacity(opts, CapacityProgress())
    assert answer.params == {"chunk_kib": 64}  # stored with it: --resume takes it for 64 KiB only
    probes = [r for _, r in load_records([out]) if r.kind == "capacity-probe"]
    assert probes and all(r.params == {"chunk_kib": 64} and r.memory_cap == BUDGET for r in probes)
    search = load_sweeps([out])[-1]
    assert search["kind"] == "capacity" and search["params"] == {"chunk_kib": 64}
    base = next(r for r in by_kib[64] if r.n == 1).result.cgroup_peak
    expected = (BUDGET - base) / (64 * 1024)
    assert abs(answer.max_n - expected) / expected < 0.1, (answer, base)
