"""One run of one variant at one N, judged: the executor every orchestration (sweep, capacity)
goes through, so a figure means the same thing whichever command produced it."""

from __future__ import annotations

import os
import shlex
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from runner import fingerprint, hostinfo, tasks
from runner.judge import overlap, verdict
from runner.limits import futex, page_reporting, read_limits
from runner.limits.host import Limits
from runner.measure import RunResult, measure_command
from runner.measure.hooks import Companion
from runner.measure.spec import Command, OnLine, RunSpec
from runner.results import RunRecord
from runner.tasks import program, proof


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


def default_timeout(sleep: float) -> float:
    """Bound every run: long enough to spawn and sleep, short enough that a stuck one ends."""
    return 2 * sleep + 90


@dataclass(frozen=True)
class Execution:
    """What ran (argv, environment, N-dependent flags and why), what it measured, how it was judged."""

    variant: tasks.Variant
    n: int
    sleep: float
    timeout: float
    argv: list[str]
    env: dict[str, str]
    flag_reasons: list[str]
    memory_cap: int | None
    result: RunResult
    judged: verdict.Verdict
    # the workload's own account: its load client's report, or a tick program's summary
    client: dict[str, Any] | None = None

    def record(self, run_id: str | None = None, **identity: object) -> RunRecord:
        """The stored record; identity = sweep_id, repeat, attempt, sleep_requested, versions, kind,
        and a scheduler's beside and predicted... run_id: the one the scheduler knew it by."""
        r = self.result
        holds_after_ready = self.variant.workload.holds_after_ready
        until = overlap.hold_window_end(holds_after_ready, r.ready_s, self.sleep)
        return RunRecord(
            run_id=run_id or new_run_id(),
            variant=self.variant.name,
            folder=self.variant.folder.name,
            program=program.digest(self.variant.folder.dir),
            n=self.n,
            sleep_s=self.sleep,
            timeout_s=self.timeout,
            command=shlex.join(self.argv),
            env_extra=self.env,
            flag_reasons=self.flag_reasons,
            verdict=self.judged.verdict,
            code=self.judged.code,
            reason=self.judged.reason,
            remedy=self.judged.remedy,
            memory_cap=self.memory_cap,
            result=self.result,
            workload=self.variant.workload.name,  # stored rows keep the name
            client=self.client,
            overlap_by_timing=self.judged.overlap_by_timing,
            hold_ratio=overlap.hold_ratio(r.timeline, r.ready_s, until),
            proof=self.variant.proof.kind if self.variant.proof else None,
            **identity,  # type: ignore[arg-type]
        )

    def timeline(self) -> list[list[float | int | None]]:
        """The samples as stored in timelines.jsonl: [t, rss, threads, procs, cgroup, user_s, sys_s]."""
        return [s.row() for s in self.result.timeline]


@dataclass(frozen=True)
class Settings:
    """How one run is made, whatever its workload: how it is measured and bounded (spec: its
    timeout, the time `ready` must come by, its cap, its sampling, the watchers that follow its
    phases...; runner.measure.spec.RunSpec, handed as it is to the Run), and how its command is
    made: the futex hash every process asks for (limits.futex), the user's `sweep --env` over the
    manifest's environment, and the workload's parameters (None or one left out: its default).
    A sweep's lane and a capacity probe build theirs from their campaign's shared settings
    (runner.campaign.CampaignSettings.settings)."""

    spec: RunSpec = field(default_factory=RunSpec)
    futex_hash: int | None = None
    env_override: dict[str, str] | None = None
    params: Mapping[str, object] | None = None  # the workload's parameters (Workload.parameters)


@dataclass(frozen=True)
class Launch:
    """One run's command as every workload's execute() starts it (the manifest's argv and
    environment, the user's --env, the futex preload, and why each N-dependent flag is there),
    and the Execution it makes of what was measured: the one preamble and ending of every
    workload's execute(), so that what a record says ran is built in one place."""

    variant: tasks.Variant
    n: int
    sleep: float
    settings: Settings
    argv: list[str]
    env: dict[str, str]
    reasons: list[str]

    @classmethod
    def of(
        cls,
        variant: tasks.Variant,
        n: int,
        sleep: float,
        settings: Settings,
        **placeholders: int | str | None,
    ) -> Launch:
        """The command of variant at N with this run's settings and the workload's placeholders."""
        argv, env, reasons = command(
            variant, n, sleep, settings.env_override, settings.futex_hash, **placeholders
        )
        return cls(variant, n, sleep, settings, argv, env, reasons)

    def limits(self) -> Limits:
        """The limits this run has: the host's, read now, with the futex hash it asks for."""
        return futex.as_run_had(read_limits(), self.env)

    def prefixed(self, *words: str) -> Launch:
        """The same command run under another (taskset -c CPUS)."""
        return replace(self, argv=[*words, *self.argv])

    def timeout(self, default: float) -> float:
        """The user's --timeout, else the workload's default for this run."""
        return self.settings.spec.timeout if self.settings.spec.timeout is not None else default

    def run(
        self,
        timeout: float,
        *,
        nofile: int | None = None,
        account_sockets: bool = False,
        companion: Companion | None = None,
        on_line: OnLine | None = None,
    ) -> RunResult:
        """Measure this command as the settings' spec says (that spec handed to the Run as it is),
        bounded by timeout where the spec sets none (Launch.timeout), in its folder, its
        environment over memrun's (without the proof attack's switches, which only an explicit
        environment may set); nofile, account_sockets, companion, on_line: the workload's
        (runner.measure.spec.Command)."""
        env = {**proof.scrubbed(os.environ), **self.env}
        command = Command(
            self.argv, env, self.variant.folder.dir, timeout, nofile, account_sockets, companion, on_line
        )
        return measure_command(command, self.settings.spec)

    def execution(
        self, timeout: float, result: RunResult, judged: verdict.Verdict, client: dict[str, Any] | None = None
    ) -> Execution:
        """What ran, what it measured and how it was judged; client: the workload's own account."""
        return Execution(
            self.variant,
            self.n,
            self.sleep,
            timeout,
            self.argv,
            self.env,
            self.reasons,
            self.settings.spec.memory_cap,
            result,
            judged,
            client,
        )


def execute(variant: tasks.Variant, n: int, sleep: float, settings: Settings | None = None) -> Execution:
    """Run the variant's program with N units of its workload (Variant.workload, runner.workloads)
    under a fresh (capped) cgroup and judge the run: the workload says how, with these settings
    (None: every default)."""
    return variant.workload.execute(variant, n, sleep, settings or Settings())


def command(
    variant: tasks.Variant,
    n: int,
    sleep: float,
    env_override: dict[str, str] | None,
    futex_hash: int | None,
    **placeholders: int | str | None,
) -> tuple[list[str], dict[str, str], list[str]]:
    """argv, environment and flag reasons: the manifest's, the user's --env over it, the futex preload."""
    argv, env, reasons = tasks.run_command(variant, n, sleep, **placeholders)
    if env_override:
        env = {**env, **env_override}
    if futex_hash is not None:
        env, reasons = {**env, **futex.environment(futex_hash)}, [*reasons, futex.reason(futex_hash)]
    return argv, env, reasons


def unrunnable_record(
    variant: tasks.Variant, n: int, judged: verdict.Verdict, **identity: object
) -> RunRecord:
    """The record of a cell that did not run (toolchain missing, build failed, does not fit)."""
    return RunRecord(
        run_id=new_run_id(),
        variant=variant.name,
        folder=variant.folder.name,
        program=program.digest(variant.folder.dir),
        n=n,
        verdict=judged.verdict,
        code=judged.code,
        reason=judged.reason,
        remedy=judged.remedy,
        workload=variant.workload.name,
        **identity,  # type: ignore[arg-type]
    )


def _info(variant: tasks.Variant) -> dict[str, str]:
    """What a report says about a variant: its family, its idiom, how it keeps its tasks (the
    report's groups) and, if its runs spread, why."""
    info = {"family": variant.family, "idiom": variant.idiom}
    if variant.model:
        info["model"] = variant.model
    if variant.spread:
        info["spread"] = variant.spread
    return info


def context(
    variants: list[tasks.Variant], command: str = ""
) -> tuple[dict[str, dict[str, str]], dict[str, Any]]:
    """(versions per variant, the start record of a sweep or capacity search): the machine, its
    limits, every toolchain's version and each variant's family and idiom, so that a stored
    figure can be traced to what produced it."""
    versions = {v.name: tasks.readiness(v).versions() for v in variants}
    meta = {
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **hostinfo.describe(),
        "fingerprint": fingerprint.collect(),
        "limits": read_limits(),
        # a VM's free page reporting, as the runs meet it (held by a measuring command where it can
        # be): it moves spawn times, not memory, so it is not part of the fingerprint
        "page_reporting": page_reporting.state(),
        "versions": versions,
        "command": command or shlex.join(["memrun", *sys.argv[1:]]),
        "variants": [v.name for v in variants],
        "variant_info": {v.name: _info(v) for v in variants},
    }
    return versions, meta
