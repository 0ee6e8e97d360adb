"""What a sweep is given and what it is made of, in the module its runner (runner.sweep) and its
lanes (runner.sweep_lane) both import: its options, its cells and the callbacks its progress goes
to. Apart, so that neither of the two imports the other for a type."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runner import tasks
from runner import workload as workloads
from runner.inputs import SleepSpec
from runner.measure import Sample
from runner.results import ResultsDir, RunRecord
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


@dataclass
class SweepOptions:
    variants: list[tasks.Variant]
    ns: list[int]
    sleep: SleepSpec
    repeat: int
    out: ResultsDir
    resume: bool = False
    timeout: float | None = None
    interval: float = 0.05
    raise_limits: bool = False
    memory_cap: int | None = None  # bytes each run's cgroup may use (None: uncapped)
    futex_hash: int | None = None  # --futex-hash: buckets every process of a run asks for
    label: str | None = None  # stored in every run; None: the sweep's label is its host name
    env_override: dict[str, str] = field(default_factory=dict)  # --env NAME=VALUE, for every run
    # What each program keeps alive (runner.workloads): resolved once, where the name was given.
    workload: workloads.Workload = field(default_factory=workloads.get)
    # The workload's parameters (Workload.parameters): those not given take their defaults.
    params: dict[str, Any] = field(default_factory=dict)
    command: str = ""
    build_errors: dict[str, str] = field(default_factory=dict)  # folder -> first line of the error
    shard: Shard | None = None  # --shard I/K: only the cells of this share (runner.shard)
    jobs: int = 1  # runs in flight at most (runner.scheduling); 1: one at a time, in order

    def __post_init__(self) -> None:
        self.params = {**self.workload.parse_parameters({}), **self.params}


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
