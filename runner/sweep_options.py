"""What a sweep is given and what it is made of, in the module its runner (runner.sweep) and its
lanes (runner.sweep_lane) both import: its options, its cells and the callbacks its progress goes
to. Apart, so that neither of the two imports the other for a type."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from runner import tasks
from runner.campaign import CampaignSettings
from runner.inputs import SleepSpec
from runner.measure import Sample
from runner.results import RunRecord
from runner.scheduling.scheduler import Scheduler
from runner.shard import Shard


@dataclass(frozen=True)
class Cell:
    variant: tasks.Variant  # as it runs the sweep's workload (Variant.under)
    n: int
    repeat: int

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.variant.name, self.n, self.repeat)


@dataclass(frozen=True)
class SweepOptions:
    """A sweep: its campaign's shared settings (variants, OUT, workload and parameters, sampling,
    futex hash, limits, label, jobs, resume: runner.campaign.CampaignSettings) and what only a
    sweep has: its N, sleep and repeats, each run's timeout, cap and --env, the command stored,
    the builds that failed (runner.sweep.prepare) and its shard."""

    campaign: CampaignSettings
    ns: list[int]
    sleep: SleepSpec
    repeat: int
    timeout: float | None = None  # --timeout: each run's; None: its workload's default
    memory_cap: int | None = None  # bytes each run's cgroup may use (None: uncapped)
    env_override: dict[str, str] = field(default_factory=dict)  # --env NAME=VALUE, for every run
    command: str = ""
    build_errors: dict[str, str] = field(default_factory=dict)  # folder -> first line of the error
    shard: Shard | None = None  # --shard I/K: only the cells of this share (runner.shard)


@dataclass
class Progress:
    """Callbacks the CLI uses to show progress; the sweep itself prints nothing."""

    on_start: Callable[[Cell, int, int, float], None] = lambda cell, i, total, sleep: None
    on_sample: Callable[[Cell, Sample], None] = lambda cell, s: None
    on_row: Callable[[RunRecord, int, int, float | None], None] = lambda record, i, total, eta: None
    log: Callable[[str], None] = lambda line: None
    # The scheduler after each decision or phase change (runner.scheduling.Scheduler: its flights,
    # what waits and why), from whichever thread made it: a live status line.
    on_schedule: Callable[[Scheduler], None] = lambda scheduler: None
