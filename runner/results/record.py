"""The typed run record: one measured (or unrunnable) cell, as stored in runs.jsonl.

One class builds it (from the cell, the RunResult and the verdict), one method writes it and one
reads it back, in the spirit of pyperf's immutable Run. The JSON stays flat and backward
compatible: the measurement's fields sit beside the cell's, as they always have, and a record
written before a field existed still loads (the field is None or its default).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from runner.measure.result import RunResult
from runner.workload import DEFAULT as DEFAULT_WORKLOAD
from runner.workload import Workload, get

# The metrics a user can ask for: column -> what it means (used in captions and --help).
METRICS = {
    "peak_rss": "peak RSS of the process tree (kernel high-water mark, or sampled tree sum if larger)",
    "cgroup_peak": "peak of the run's memory cgroup (includes kernel memory and first-touched page cache)",
    "sampled_peak_rss": "highest sampled sum of RSS over the process tree",
    "cgroup_kernel": "kernel memory of the run's cgroup at its peak, for connections while all were held "
    "(v1 kmem + kmem.tcp, v2 kernel + sock)",
}
# What `memrun compare` also takes: times, in seconds (its floor too). A spawn that took longer
# beside other runs than alone is what an A/A of `sweep --jobs` must rule out.
TIME_METRICS = {"ready_s": "spawn time (seconds from the fork to `ready N`)"}
# What a record without a measurement (toolchain missing, build failed) stores for these, so that
# every row has the columns a table reads.
_NULL_MEASUREMENT = (
    "peak_rss",
    "cgroup_peak",
    "sampled_peak_rss",
    "ready_s",
    "wall_s",
    "exit_code",
    "signal",
    "started_at",
)
REQUIRED = ("variant", "n", "verdict", "peak_rss")


@dataclass(frozen=True)
class RunRecord:
    """One run of one (variant, N, repeat) cell: what was asked, how it was judged, what it measured."""

    variant: str
    n: int
    verdict: str  # valid | invalid | failed
    code: str = ""  # runner.judge.verdict.CODES, or a manifest's runtime-limit code
    reason: str | None = None
    remedy: str | None = None
    sweep_id: str | None = None
    run_id: str | None = None
    folder: str | None = None
    repeat: int = 0
    attempt: int = 1
    sleep_requested: str | None = None  # as given: "10", "auto", "auto:2"
    sleep_s: float | None = None  # the sleep this run used
    timeout_s: float | None = None
    command: str | None = None
    env_extra: dict[str, str] = field(default_factory=dict)  # every variable the run got beyond memrun's
    # The settings the user gave the sweep (`sweep --env NAME=VALUE`, also in env_extra): they make
    # the runs another population, which report and compare keep apart and name.
    env_override: dict[str, str] = field(default_factory=dict)
    flag_reasons: list[str] = field(default_factory=list)
    superseded: bool = False  # an invalid run that --sleep auto ran again
    versions: dict[str, str] = field(default_factory=dict)
    memory_cap: int | None = None  # bytes the run's cgroup was allowed (None: uncapped)
    kind: str = "sweep"  # "sweep", or "capacity-probe": one run of a `memrun capacity` search
    # Who/where these runs belong to (`sweep --label`, default the host name): runs of different
    # labels are never pooled into one median. None in rows written before labels existed.
    label: str | None = None
    # What the program was asked to keep alive: "sleep" (tasks that sleep, the article's; rows
    # written before workloads existed are sleep rows) or "connections" (idle TCP connections).
    # Tables and figures never mix two workloads.
    workload: str = DEFAULT_WORKLOAD
    # The workload's own account of the run, beside what memrun measured of the program: its load
    # client's report (connections, http: connected, dropped, phases, the client's cgroup peak and
    # CPU time), or a tick program's summary (wakes asked and achieved, lateness, CPU per wake).
    client: dict[str, Any] | None = None
    # The workload's parameters this run was made with (runner.workload.Parameter: a connection's
    # read buffer, a load client's rates...). Rows stored before parameters existed kept the
    # buffer at the top level: runner.results.migrate moves it here.
    params: dict[str, Any] | None = None
    result: RunResult | None = None  # None: the cell could not run at all
    extra: dict[str, Any] = field(default_factory=dict)  # fields this version does not know
    # The version axis (`sweep --version go=1.22.0`, `bisect`): {NAME: version} chosen for this
    # run's build, and the variant it is a version of ("go" for go@1.22.0). Empty and None for the
    # installed build, and in rows written before versions could be chosen.
    chosen_version: dict[str, str] = field(default_factory=dict)
    version_of: str | None = None
    # What proves the N waits overlapped, seen from outside (runner.judge.overlap): a valid run's own
    # timing (wall < 2 x sleep; False: the figure rests on the program's `ready` proof alone), and
    # RSS at `ready` ÷ the highest RSS until the first wait could end (≈ 1 when `ready` came with
    # every task waiting). None in rows stored before memrun recorded them.
    overlap_by_timing: bool | None = None
    hold_ratio: float | None = None
    # Which program ran: a digest of its task folder's files (runner.tasks.program.digest). Runs of
    # an edited program are another population for capacity's evidence. None in older rows.
    program: str | None = None
    # A run of kind "books" (`memrun explain --books`): the figures its runtime gave of its own
    # memory at the hold, in bytes, by the names of its manifest's [variant.books].
    books: dict[str, Any] | None = None
    # The kind of `ready` proof the program states (runner.tasks.proof: "self-contained", "counter"
    # or "state"; the last two prove N waiting only with `ready` before the sleep's end). None
    # under another workload, and in rows stored before manifests stated it.
    proof: str | None = None
    # What ran beside this run, when a scheduler kept several in flight (runner.scheduling): each
    # phase of another run that overlapped this one's life, as {run_id, variant, n, phase
    # ("spawn", "hold", "end"), from_s, to_s} in seconds since this run's fork. [] when it ran
    # alone; None in rows stored before memrun scheduled runs (they all ran alone).
    beside: list[dict[str, Any]] | None = None
    # What the scheduler predicted of it before it ran (runner.scheduling.predict): spawn_s, peak
    # (bytes), exit_s, how, and how far off each was (spawn_error, peak_error: measured ÷
    # predicted - 1). None in older rows and in rows of cells that did not run.
    predicted: dict[str, Any] | None = None
    # The memory memrun touched and gave back just before the fork, so that the spawn took memory
    # the machine had backed (runner.scheduling.warm): {bytes, s}. None when nothing was touched.
    warmed: dict[str, Any] | None = None

    def replace(self, **changes: Any) -> RunRecord:
        return dataclasses.replace(self, **changes)

    @property
    def resolved_workload(self) -> Workload:
        """The workload it ran, the object: the record keeps the name (as stored, and as a row from
        before workloads is migrated to), and this is the one place a loaded record's name is
        looked up, so that what reads a record asks the workload instead of comparing names."""
        return get(self.workload)

    def get(self, name: str, default: Any = None) -> Any:
        """A stored figure by its JSON name, measured or not (for progress lines and tables)."""
        return self.to_json().get(name, default)

    def to_json(self) -> dict[str, Any]:
        """The flat JSON object written to runs.jsonl."""
        out: dict[str, Any] = {
            "sweep_id": self.sweep_id,
            "run_id": self.run_id,
            "variant": self.variant,
            "folder": self.folder,
            "n": self.n,
            "repeat": self.repeat,
            "attempt": self.attempt,
            "sleep_requested": self.sleep_requested,
            "sleep_s": self.sleep_s,
            "timeout_s": self.timeout_s,
            "command": self.command,
            "env_extra": self.env_extra,
            "env_override": self.env_override,
            "flag_reasons": self.flag_reasons,
            "verdict": self.verdict,
            "code": self.code,
            "reason": self.reason,
            "remedy": self.remedy,
            "superseded": self.superseded,
            "versions": self.versions,
            "memory_cap": self.memory_cap,
            "kind": self.kind,
            "label": self.label,
            "workload": self.workload,
            "client": self.client,
            "params": self.params,
            "chosen_version": self.chosen_version,
            "version_of": self.version_of,
            "overlap_by_timing": self.overlap_by_timing,
            "hold_ratio": self.hold_ratio,
            "program": self.program,
            "books": self.books,
            "proof": self.proof,
        }
        # only where a scheduler ran it: older rows stay as they were
        for name in ("beside", "predicted", "warmed"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.result is not None:
            data = self.result.to_dict(timeline=False)
            data.pop("argv")
            out.update(data)
        else:
            out.update(dict.fromkeys(_NULL_MEASUREMENT))
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        """Read one runs.jsonl object back; a KeyError names a missing required field."""
        missing = [k for k in REQUIRED if k not in data]
        if missing:
            raise KeyError(", ".join(missing))
        own = {f.name for f in dataclasses.fields(cls)} - {"result", "extra"}
        measured = set(RunResult.field_names())
        result = None
        if data.get("wall_s") is not None or data.get("peak_rss") is not None:
            result = RunResult.from_dict({k: v for k, v in data.items() if k in measured})
        kwargs = {k: v for k, v in data.items() if k in own and v is not None}
        kwargs.update(reason=data.get("reason"), remedy=data.get("remedy"))
        extra = {
            k: v for k, v in data.items() if k not in own and k not in measured and k not in _NULL_MEASUREMENT
        }
        return cls(**kwargs, result=result, extra=extra)
