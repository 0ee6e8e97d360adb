"""What every run of a campaign shares, a sweep's (runner.sweep_options.SweepOptions) and a
capacity search's (runner.capacity.CapacityOptions) alike: one frozen, typed account both compose
instead of each repeating its fields, checked once where it is built, and the one place a run's
Settings take their shared part from (CampaignSettings.settings)."""

from __future__ import annotations

from dataclasses import dataclass, field

from runner import tasks
from runner import workload as workloads
from runner.execute import Settings
from runner.measure import RunSpec
from runner.results import ResultsDir


@dataclass(frozen=True)
class CampaignSettings:
    """The variants a campaign runs and where its runs go, what they keep alive and with which
    parameters, how often they are sampled, the futex hash every process asks for, whether kernel
    limits may be raised, the label its runs are stored under, how many runs may be in flight at
    once and whether what OUT holds is skipped. A misspelt setting is a TypeError here, where the
    options are built, and so is a parameter the workload does not have."""

    # A sweep's as chosen (it runs each as it runs its workload: Variant.under); a capacity
    # search's already under its workload (runner.capacity.prepare.with_workload).
    variants: list[tasks.Variant]
    out: ResultsDir  # the results directory every run and start record goes to
    # What each program keeps alive (runner.workloads): resolved once, where the name was given.
    workload: workloads.Workload = field(default_factory=workloads.get)
    # The workload's parameters (Workload.parameters): those not given take their defaults;
    # stored with every run and in the campaign's start record.
    params: dict[str, object] = field(default_factory=dict)
    interval: float = 0.05  # seconds between samples of a run's tree
    futex_hash: int | None = None  # --futex-hash: buckets every process of a run asks for
    raise_limits: bool = False  # --raise-limits: kernel limits raised to what the runs need
    # Stored in every run; None: the host name (a sweep's from its start record, a capacity
    # search's with the futex hash's suffix: runner.capacity.label_of).
    label: str | None = None
    jobs: int = 1  # runs in flight at most (runner.scheduling); 1: one at a time, in order
    resume: bool = False  # --resume: skip what OUT already holds under this label

    def __post_init__(self) -> None:
        own = {p.name for p in self.workload.parameters}
        if unknown := sorted(set(self.params) - own):
            raise TypeError(f"workload {self.workload.name} has no parameter {', '.join(unknown)}")
        if self.jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {self.jobs}")
        if not self.interval > 0:
            raise ValueError(f"interval must be more than 0 s, got {self.interval}")
        object.__setattr__(self, "params", {**self.workload.parse_parameters({}), **self.params})

    def settings(self, spec: RunSpec, env_override: dict[str, str] | None = None) -> Settings:
        """One run's settings: its spec (what the scheduler decided for it: bounds, cap, watchers),
        with what every run of the campaign shares (the futex hash, the workload's parameters) and
        the user's --env over the manifest's environment (a sweep's; None or empty: none)."""
        return Settings(spec, self.futex_hash, env_override, self.params)
