"""What a workload is (what the programs keep alive, N of them at once, and everything the rest of
memrun asks about it), and the registry that finds one by name. A workload is a type, not a
branch: a package of runner.workloads defines one (sleep, connections, http, tick), the registry loads it by
name, and no other module compares a workload with a name. Adding a workload is adding a package
(or a module that registers one).

This module stays below everything that asks it: the registry imports the workloads' packages by
name when first asked (as BenchExec loads a tool's module), never statically.

A workload says
- its words: what N counts ("tasks", "connections"), per one ("task", "conn"), in a title;
- how one run of one variant at one N executes and is judged (execute: the module
  `<package>.execute` of the workload's package, loaded when first called, so that this
  description stays below everything a run needs), and the text of what limits N meets
  (`<package>.limits`, where it has limits of its own);
- what the user sets of its runs (its parameters: a connection's read buffer, a load client's
  rates), stored under `params`, and which stored rows are its cells;
- its limit needs (a descriptor per unit: RLIMIT_NOFILE set per run, the descriptor, port and
  conntrack limits in predictions), and why a cell cannot run at all;
- what its tables and figures add (the report's extra columns, an extra figure).

Each capability is a method with a no-op default (as BenchExec's BaseTool2 has them): a view or a
limit asks the workload and never checks what it has, so a new workload overrides what it adds.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class Words:
    """How a workload's N reads in sentences, tables and figure titles."""

    noun: str  # what N counts, in a sentence: "tasks"
    unit: str  # per one, after KiB/: "task"
    per: str  # per one, in a figure's words: "task"
    title: str  # in a figure title: "concurrent tasks"
    hold: str  # what the run does for the sleep, in progress lines: "sleep"
    spawn: str  # the table's word for the time to `ready N`: "spawn"
    against: str  # the log-log figure's title ends "... against N"


@dataclass(frozen=True)
class Parameter:
    """A setting of a workload's runs that the user chooses (`memrun sweep --rate 1k,10k`): the CLI
    makes an option of each, so a workload gains one without a CLI edit. Stored with every run
    under `params`; where `identity`, runs of another value are other cells."""

    name: str  # the option is --NAME with "_" as "-"; the key in `params`
    default: str  # as the user would type it
    help: str
    parse: Callable[[str], Any]  # text to value; ValueError says what is wrong
    identity: bool = True  # False: a judgement (an SLO), not what was measured
    metavar: str = "TEXT"  # what --help shows it takes
    # True: parse gives a tuple, and each of its values is a campaign of its own (`--period
    # 1s,10s` sweeps every cell at 1 s, then at 10 s), its runs storing that one value; False:
    # the value is one run's whole setting (http's `--rate 1k,10k` sends both rates in each run).
    each: bool = False

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


class Workload:
    """One workload. Subclasses override what differs; the defaults are those of tasks that sleep."""

    name: str = ""
    words: Words = Words("tasks", "task", "task", "concurrent tasks", "sleep", "spawn", "against N")
    # Its package: <package>.execute has execute(workload, variant, n, sleep, settings), which runs
    # one cell; <package>.limits, where present, limits_report(n, variants, params) for `memrun limits`.
    package: str = ""
    # When each unit's wait begins: at the fork (tasks that sleep from their start, so none can end
    # before the sleep after the fork) or at `ready` (a client holds connections for the sleep from
    # then on). Decides the window in which memory must hold still (runner.judge.overlap).
    holds_after_ready: bool = False
    # Whether its runs may share the machine with others while they hold (runner.scheduling): only
    # when a hold is idle, as N sleeping tasks are. A client that keeps connections busy, or a
    # server under load, uses the CPU the whole time: such runs always run alone.
    overlaps: bool = False
    # The placeholders its commands may use besides every command's ({n}, {sleep}, tools, places):
    # the connections server's {port} and {buffer}; its execute fills them.
    placeholders: tuple[str, ...] = ()
    # What the user may set for its runs (sweep options, stored under `params`).
    parameters: tuple[Parameter, ...] = ()
    # Another workload whose stored runs its views read beside its own (tick's cost over sleep's at
    # the same N): runner.results.workloads.select hands them over; "" for none.
    baseline: str = ""
    # The N a sweep of it runs when --n is not given (None: the sweep's own default).
    default_ns: str | None = None
    # The HTML report's paragraph on when a run of this workload counts, and on its programs.
    validity: str = ""
    program_html: str = ""
    # Its lines in `--help` (runner.cli.options builds them from every registered workload): what a
    # run of it keeps alive, in one line; what `sweep --workload NAME` and `capacity --workload NAME`
    # measure, and what `report`/`plot` show of it, a paragraph each ("": nothing beyond the common).
    about: str = ""
    sweep_help: str = ""
    capacity_help: str = ""
    shown_help: str = ""

    @property
    def figure_prefix(self) -> str:
        """Prefix of its figures' file names, so two workloads' figures never overwrite each other."""
        return f"{self.name}-"

    def module(self, part: str) -> ModuleType | None:
        """One of its package's modules, imported by name (None where it has none): the plug-in
        boundary, as BenchExec loads a tool's module, so nothing below imports a workload's code."""
        if not self.package:  # a workload that overrides what it needs (a test's)
            return None
        try:
            return importlib.import_module(f"{self.package}.{part}")
        except ModuleNotFoundError as e:
            if e.name != f"{self.package}.{part}":
                raise
            return None

    def execute(self, variant: Any, n: int, sleep: float, settings: Any) -> Any:
        """One run of variant at N with these settings (runner.execute.Settings), measured and
        judged: a runner.execute.Execution."""
        module = self.module("execute")
        if module is None:
            raise NotImplementedError(f"workload {self.name}: no {self.package}.execute")
        return module.execute(self, variant, n, sleep, settings)

    def limits_report(
        self, n: int | None, variants: Any, params: Mapping[str, Any] | None = None
    ) -> str | None:
        """`memrun limits --workload NAME`: what N units meet of this machine, where the workload
        has limits of its own (None: the thread limits of the variants are all there is), with
        its parameters' values (params; None: the defaults), as a sweep with them would meet them."""
        module = self.module("limits")
        if module is None:
            return None
        return module.limits_report(n, variants, {**self.parse_parameters({}), **(params or {})})

    def page_title(self, metric_title: str) -> str:
        """The HTML report's title: what was measured of what."""
        return f"{metric_title} of N {self.words.title}"

    def parse_parameters(self, raw: Mapping[str, str | None]) -> dict[str, Any]:
        """Its parameters' values from the user's text (a missing or None one: its default). A
        ValueError names the option."""
        out: dict[str, Any] = {}
        for p in self.parameters:
            text = raw.get(p.name)
            try:
                out[p.name] = p.parse(p.default if text is None else text)
            except ValueError as e:
                raise ValueError(f"{p.option}: {e}") from None
        return out

    def campaigns(self, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The parameter values of each campaign these values make, in order: one per value of each
        `each` parameter (their product), every other value as given; [params] when there is none."""
        out: list[dict[str, Any]] = [dict(params)]
        for p in self.parameters:
            if p.each:
                values = params.get(p.name)
                values = values if isinstance(values, tuple | list) else (values,)
                out = [{**one, p.name: v} for one in out for v in values]
        return out

    def record_fields(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """What its rows (and its sweeps' start records) store beyond every row's fields: its
        parameters' values under `params`. params: the campaign's (a sweep's or a capacity search's)."""
        mine = {p.name: params.get(p.name) for p in self.parameters}
        return {"params": mine} if mine else {}

    def identity(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """The values of its parameters that make runs other cells (Parameter.identity), from a
        run's stored params or a campaign's (None: a row that stored none)."""
        given = params or {}
        return {p.name: given.get(p.name) for p in self.parameters if p.identity}

    def keeps(self, row: dict[str, Any], params: Mapping[str, Any]) -> bool:
        """Whether a stored row of this workload is one of this sweep's cells: the same values of
        every parameter that is an identity."""
        return self.identity(row.get("params")) == self.identity(params)

    def progress(self, record: Any) -> str:
        """A stored run in the sweep's progress line, before its wall time: when `ready N` came."""
        r = record.result
        return f"ready {r.ready_s:.1f} s" if r is not None and r.ready_s is not None else "no ready"

    def ready_deadline(self, sleep: float, params: Mapping[str, Any]) -> float | None:
        """Seconds after the fork by which a cell that meets a thread limit here (and is not run
        with it raised) is stopped if `ready N` has not come, since no wait then lets its N tasks
        all exist: the sleep, when its first waits end (None: never stopped so, as for a workload
        whose waits begin at `ready`, whose own limits are descriptors)."""
        return None if self.holds_after_ready else sleep

    def cell_problem(self, n: int) -> tuple[str, str, str | None] | None:
        """Why N cannot run here at all, checked before a run is started: (verdict code, reason,
        remedy), a failure the machine decides, stored as a row that says so."""
        return None

    # --- what its views add (defaults: nothing beyond the common table and figures) ---------------

    def report_extras(self, runs: Any) -> dict[tuple[str, int], dict[str, Any]]:
        """Per (variant, N): the columns its report records add."""
        return {}

    def legend(self, metric: str, summary: Any) -> str | None:
        """The line under the report's table (None: the common one, in tasks' words)."""
        return None

    def heading(self, head: str) -> str:
        """The report table's heading, in its words (head: the common one)."""
        return head

    def tail(self, recs: list[dict[str, Any]]) -> str:
        """What the report adds below its legend (a load client's table): "" for nothing."""
        return ""

    def figures(
        self, runs: Any, cells: list[dict[str, Any]], metric: str, prefix: str, caption: str
    ) -> Iterator[tuple[str, Any]]:
        """(file stem without the workload prefix and label suffix, figure): its own figures."""
        return iter(())

    def data_files(self, runs: Any, out_dir: Path, prefix: str) -> list[Path]:
        """Data files it writes beside its figures (the http workload's .hgrm): their paths."""
        return []

    def client_line(self, n: int, client: Mapping[str, Any]) -> str | None:
        """`memrun inspect`'s line on a run's load client (None: it has none)."""
        return None

    def pinned_cpus(self, client: Mapping[str, Any] | None) -> str | None:
        """The CPUs a run's program was pinned to (taskset's list), as its client record says; None
        where memrun does not pin it."""
        return None

    # --- the limits its units meet (defaults: a unit holds nothing but its task) -----------------

    def probe_limits(self, limits: Any) -> Any:
        """The machine's limits (runner.limits.host.Limits) with whatever its plans need probed
        besides (a workload whose units hold connections: whether conntrack tracks loopback)."""
        return limits

    def limit_hits(self, n: int, limits: Any) -> list[Any]:
        """The limits N of its units meet beyond their threads' (runner.limits.hit.Hit each)."""
        return []

    def caps_n(self) -> bool:
        """Whether its units meet limits of their own at some N (a descriptor each), so that a
        capacity search starts below them even for a variant whose tasks need no thread."""
        return False

    def run_nofile(self, n: int, limits: Any) -> tuple[int | None, str] | None:
        """The RLIMIT_NOFILE memrun gives its run at N, and where it came from; None: memrun sets
        none, the run inherits memrun's soft limit."""
        return None

    def budget_floor(self) -> int | None:
        """The least one of its units costs in bytes whatever the runtime (a connection's socket and
        buffer), bounding the N a memory budget can hold; None: only threads' costs bound it."""
        return None

    def __repr__(self) -> str:
        return f"<workload {self.name}>"


# --- the registry ---------------------------------------------------------------------------------

DEFAULT = "sleep"  # every variant's `run`; and the workload of rows stored before there were others
# Each built-in workload's package of runner.workloads, loaded when first asked for. A package is
# named for what it holds, never for a standard-library module (http's is `web`); the workload's
# name is what stored rows say.
_PACKAGES = {DEFAULT: "sleep", "connections": "connections", "http": "web", "tick": "tick"}
BUILT_IN = tuple(_PACKAGES)
_REGISTRY: dict[str, Workload] = {}


def register(workload: Workload) -> Workload:
    """Make a workload known by its name (a workload's package does this when it is imported)."""
    _REGISTRY[workload.name] = workload
    return workload


def unregister(name: str) -> None:
    """Forget a workload registered for a while (a test's)."""
    if name not in BUILT_IN:
        _REGISTRY.pop(name, None)


def is_default(name: str | None) -> bool:
    """Whether a name is the default workload's, or no name (a row from before workloads): the one
    a variant's own `run` serves, where any other is a [variant.workloads.NAME] table."""
    return not name or name == DEFAULT


def names() -> tuple[str, ...]:
    """Every known workload's name, the built-in ones first, the default first of all."""
    return tuple(dict.fromkeys([*BUILT_IN, *_REGISTRY]))


def get(name: str | None = None) -> Workload:
    """The workload of that name; no name (a row stored before workloads existed) is the default.
    An unknown name is a KeyError that lists the known ones."""
    name = name or DEFAULT
    if name not in _REGISTRY and name in BUILT_IN:
        importlib.import_module(f"runner.workloads.{_PACKAGES[name]}")  # registers itself
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown workload {name!r}; known: {', '.join(names())}") from None
