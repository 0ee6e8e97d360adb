"""runner.capacity.probes: when a probe stopped without `ready` deserves a longer sleep, and the
spec a probe is run with."""

from __future__ import annotations

import pytest

from runner.campaign import CampaignSettings
from runner.capacity.probes import TIMEOUT_GRACE, CapacityOptions, CapacityProgress, Prober, still_growing
from runner.capacity.stall import StallWatch
from runner.measure import Sample, Watcher
from runner.results import ResultsDir
from runner.scheduling.scheduler import Ran
from runner.tasks.manifest import load_all
from tests.support.cli import FIXTURE_TASKS

MIB = 1 << 20


def _timeline(memory, seconds: float = 4.0, step: float = 0.05, threads=lambda t: 20) -> list[Sample]:
    return [
        Sample(round(i * step, 3), memory(i * step), threads(i * step), 1, memory(i * step))
        for i in range(int(seconds / step) + 1)
    ]


def test_a_runtime_still_allocating_tasks_is_growing():
    assert still_growing(_timeline(lambda t: int((20 + 50 * t) * MIB)))


def test_a_runtime_sitting_at_its_own_heap_limit_is_not():
    # the JVM under a 1 GiB cap: a quarter of it for the heap, full by 1 s, then only collecting
    assert not still_growing(_timeline(lambda t: int(min(260, 40 + 400 * t) * MIB)))


def test_threads_still_starting_count_as_growing_even_with_flat_memory():
    assert still_growing(_timeline(lambda t: 300 * MIB, threads=lambda t: int(100 + 2000 * t)))


def test_too_short_to_tell_is_growing():
    assert still_growing(_timeline(lambda t: MIB, seconds=0.1))


class _Lane:
    """A scheduler's lane that runs each probe at once, with its one watcher."""

    def __init__(self) -> None:
        self.watchers = [Watcher()]

    def run(self, order, plan, body):  # type: ignore[no-untyped-def]
        return Ran(body(self.watchers))


@pytest.mark.parametrize("in_lane", [False, True])
def test_the_spec_a_probe_is_run_with_is_the_one_it_built(tmp_path, monkeypatch, in_lane):
    """From the probe to the Run, one typed spec, handed on as it is: the budget as its cap, the
    sleep as the time `ready` must come by, the stall watch, the search's interval (and, in a
    scheduler's lane, the lane's watchers) are what the Run was given."""
    from runner.capacity import probes
    from tests.support.handoff import record

    variant = load_all(FIXTURE_TASKS)["fake"]
    campaign = CampaignSettings([variant], ResultsDir(tmp_path), interval=0.02)
    lane = _Lane() if in_lane else None
    prober = Prober(
        variant, 256 * MIB, CapacityOptions(campaign, [256 * MIB]), {}, CapacityProgress(), lane=lane
    )
    seen = record(monkeypatch, probes)
    probe = prober.run(1000, 2.0, "capacity")
    assert probe.memory_cap == 256 * MIB and len(seen.built) == len(seen.runs) == 1
    (settings,), (ran,) = seen.built, seen.runs
    spec = settings.spec
    assert ran.spec is spec and ran.command.argv[-2] == "1000"
    assert (spec.memory_cap, spec.ready_by, spec.interval) == (256 * MIB, 2.0, 0.02)
    assert isinstance(spec.stop_when, StallWatch) and spec.timeout is not None
    assert spec.timeout_grace == TIMEOUT_GRACE * spec.timeout
    assert spec.watchers is lane.watchers if lane else spec.watchers == ()
    assert settings.params == campaign.params


def test_a_probe_stopped_by_the_memory_guard_is_run_again_alone_for_that_reason(tmp_path, monkeypatch):
    """The retry's reason reaches the scheduler's plan: it is not replaced by the variant's own
    (none, for a small fake), which would run the retry beside others again. (The Run is the
    recording stand-in: what is checked is the plan, nothing is measured.)"""
    from runner.capacity import probes
    from runner.measure import RunSpec
    from tests.support.handoff import record

    record(monkeypatch, probes)

    plans = []

    class Recording(_Lane):
        def run(self, order, plan, body):  # type: ignore[no-untyped-def]
            plans.append(plan)
            return super().run(order, plan, body)

    variant = load_all(FIXTURE_TASKS)["fake"]
    campaign = CampaignSettings([variant], ResultsDir(tmp_path), interval=0.02)
    prober = Prober(
        variant, 256 * MIB, CapacityOptions(campaign, [256 * MIB]), {}, CapacityProgress(), lane=Recording()
    )
    reason = "stopped beside others to keep the host's memory"
    prober._execute(10, 0.2, RunSpec(timeout=30), alone=reason)
    prober._execute(10, 0.2, RunSpec(timeout=30))
    assert [p.alone for p in plans] == [reason, None]
