"""Every stored run of one boundary: what a capacity answer is computed from.

An answer for (variant, budget, workload, label) is not the latest search's alone: every run
made there counts, whether a search ran it (this one or an earlier one), a `--check`, or a sweep
under the same cap (`sweep --memory-cap`). One boundary means one thing measured: the same
program (its folder's digest, runner.tasks.program) on the same runtime versions, under the same
cap, label and workload, with the same values of the workload's parameters that make runs other
cells (a connection's read buffer: runner.workload.Parameter.identity). A run of an edited
program or another runtime version is another population; a stored answer of one still tells a
search where to start (runner.capacity.prior).

Not evidence: a probe whose predicted sleep proved too short while its tasks were still being
spawned and that was run again with a longer sleep (it says nothing about memory), a run
interrupted by the user, and a sweep's cell that never ran.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from runner.capacity.search import Probe
from runner.capacity.stall import STALLED
from runner.results import RunRecord
from runner.scheduling.scheduler import MEMORY_GUARD
from runner.workload import Workload

PROBE_KINDS = ("capacity-probe", "capacity-check")
RETRY = "capacity-retry"  # sleep_requested of a probe re-run with a longer sleep (probes.Prober)


def fits(record: RunRecord) -> bool:
    """Whether the run fitted under its cap: `ready N` in time, every task held under the cap
    until its sleep was over, nothing in the tree OOM-killed; and then either it exited as a
    valid run, or memrun stopped it where its exit stalled (a capacity is a memory answer).
    A run that ran out of memory while its tasks ended failed."""
    oom = record.result.cgroup_oom_kills if record.result else None
    return (record.verdict == "valid" or record.code == STALLED) and not oom


@dataclass(frozen=True)
class Boundary:
    """What makes runs evidence of one boundary."""

    variant: str
    budget: int
    workload: Workload
    label: str | None
    program: str | None
    versions: str  # the runtime versions, as sorted JSON
    params: str  # the values of the workload's parameters that are an identity, as sorted JSON

    @classmethod
    def of(cls, record: RunRecord, workload: Workload) -> Boundary:
        """The boundary of a stored run of workload (its stored name, resolved by the caller)."""
        return cls(
            record.variant,
            record.memory_cap or 0,
            workload,
            record.label,
            record.program,
            json.dumps(record.versions, sort_keys=True),
            json.dumps(workload.identity(record.params), sort_keys=True),
        )


def _retried(records: list[RunRecord]) -> set[str]:
    """The run ids of probes run again with a longer sleep in the same search (the retry
    follows its probe at the same N)."""
    out: set[str] = set()
    last: dict[tuple[str | None, str, int | None, int], RunRecord] = {}
    for r in records:
        key = (r.sweep_id, r.variant, r.memory_cap, r.n)
        if (r.sleep_requested or "").startswith(RETRY) and key in last:
            out.add(last[key].run_id or "")
        last[key] = r
    return out


def counts(record: RunRecord) -> bool:
    """Whether a stored run can be evidence of a capacity at all (its boundary aside)."""
    if record.memory_cap is None or record.program is None:
        return False
    if record.code in ("interrupted", MEMORY_GUARD):  # stopped by memrun, not by the budget
        return False
    if record.kind in PROBE_KINDS:
        return True
    return record.kind == "sweep" and record.result is not None and not record.superseded


def gather(records: Iterable[RunRecord], workload: Workload) -> dict[Boundary, list[RunRecord]]:
    """Every run that is evidence, by boundary, in the order they were stored (records: the
    stored runs of workload)."""
    records = list(records)
    retried = _retried(records)
    out: dict[Boundary, list[RunRecord]] = {}
    for r in records:
        if counts(r) and (r.run_id or "") not in retried:
            out.setdefault(Boundary.of(r, workload), []).append(r)
    return out


def outcomes(runs: Iterable[RunRecord]) -> dict[int, list[Probe]]:
    """The runs as the search sees them: N -> fitted or not, with the cgroup peak."""
    out: dict[int, list[Probe]] = {}
    for r in runs:
        out.setdefault(r.n, []).append(Probe(fits(r), r.result.cgroup_peak if r.result else None))
    return out
