"""`memrun explain --books`: runs of a variant in which its runtime is asked for its own books
(runner.tasks.books), stored apart from the figures (kind "books": no report, figure or capacity
reads them).

Each run is an ordinary measured run with the manifest's books environment added. At its hold
memrun first takes its own snapshot (runner.measure.hold), then asks: the signal, the commands
(their stdout kept), and waits wait_s for the program's own printing. What was printed, every
line of it (a runtime's books can run to hundreds of lines), is parsed with the manifest's regexes
once the run is over, so both views of one process at one moment sit in one record.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable
from typing import Any

from runner import tasks
from runner.execute import Execution, Settings, execute
from runner.judge.rerun import longer_sleep
from runner.measure import RunSpec, hold
from runner.measure.cgroups import RunCgroup
from runner.results import ResultsDir, RunRecord
from runner.tasks.books import Books
from runner.tasks.commands import subst, values
from runner.tasks.toolchain import tools_of
from runner.units import format_number

ASK_TIMEOUT_S = 60.0


class Asker:
    """The hold hook of a books run: the snapshot, then the asking; keeps what the commands said."""

    def __init__(self, variant: tasks.Variant, books: Books) -> None:
        self.variant, self.books = variant, books
        self.said: list[str] = []
        self.printed: list[str] = []  # everything the program wrote, whole: its books may be long
        self.problems: list[str] = []

    def heard(self, line: bytes) -> None:
        """A line the program wrote, on stdout or stderr."""
        self.printed.append(line.decode("utf-8", "replace").rstrip("\n"))

    def __call__(self, pids: list[int], cg: RunCgroup, t: float) -> dict[str, Any]:
        split = hold.snapshot(pids, cg, t)
        if not pids:
            return split
        pid = min(pids)  # the program's own process: its helpers are forked after it
        if self.books.signal is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, self.books.signal)
        vals = {**values(self.variant.folder, tools_of(self.variant.folder)), "pid": str(pid)}
        for command in self.books.ask:
            argv = [subst(a, vals) for a in command]
            try:
                done = subprocess.run(argv, capture_output=True, text=True, timeout=ASK_TIMEOUT_S)
            except (OSError, subprocess.TimeoutExpired) as e:
                self.problems.append(f"{argv[0]}: {e}")
                continue
            self.said.append(done.stdout)
            if done.returncode:
                self.problems.append(
                    f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()[-300:]}"
                )
        time.sleep(self.books.wait_s)
        return split


def run(
    variant: tasks.Variant,
    n: int,
    sleep: float,
    label: str,
    on_run: Callable[[Execution], None] | None = None,
    memory_cap: int | None = None,
) -> RunRecord:
    """One books run of the variant at N (under memory_cap, where given): the record, with
    `books` (figure -> bytes) and any problem asking in its reason. The variant must have
    [variant.books]."""
    books = variant.books
    assert books is not None
    asker = Asker(variant, books)
    spec = RunSpec(memory_cap=memory_cap, at_hold=asker, on_line=asker.heard, on_stderr=asker.heard)
    ex = execute(variant, n, sleep, Settings(spec, env_override=dict(books.env)))
    if on_run:
        on_run(ex)
    text = "\n".join([*asker.said, *asker.printed])
    record = ex.record(kind="books", label=label, sleep_requested=str(sleep))
    found = books.read(text)
    missing = [f.name for f in books.figures if f.name not in found]
    notes = [*asker.problems, *([f"not printed: {', '.join(missing)}"] if missing else [])]
    reason = "; ".join(notes) if notes else record.reason
    return record.replace(books=found, reason=reason)


def run_long_enough(
    variant: tasks.Variant, n: int, sleep: float, label: str, memory_cap: int | None = None
) -> list[RunRecord]:
    """The books run of the variant at N, and, where its spawn outlasted the sleep (judged so), a
    second one with the sleep `--sleep auto` would give it: a busy machine can make an Erlang VM
    take longer than 3 s to start one task. The first is then kept, superseded, as a sweep keeps
    it; no sleep helps where the machine's thread limits stop the spawn (not re-run)."""
    first = run(variant, n, sleep, label, memory_cap=memory_cap)
    longer = longer_sleep(first.code, first.result.ready_s if first.result else None, variant, n, sleep)
    if longer is None:
        return [first]
    superseded = first.replace(superseded=True, remedy=f"re-run with sleep {longer:g} s")
    return [superseded, run(variant, n, longer, label, memory_cap=memory_cap)]


class NoBooks(ValueError):
    """None of the chosen variants has [variant.books] in its manifest."""


def with_books(chosen: list[tasks.Variant], log: Callable[[str], None]) -> list[tasks.Variant]:
    """The chosen variants that have [variant.books], each other one said skipped through log;
    NoBooks when none has."""
    for v in chosen:
        if v.books is None:
            log(f"{v.name}: its manifest has no [variant.books]; skipped")
    found = [v for v in chosen if v.books is not None]
    if not found:
        raise NoBooks("none of the chosen variants has [variant.books] in its manifest")
    return found


def measure_all(
    variants: list[tasks.Variant],
    ns: list[int],
    sleep: float,
    label: str,
    store: ResultsDir,
    memory_cap: int | None,
    log: Callable[[str], None],
) -> None:
    """The books runs of each variant at N=1 and every N, stored under label as they end (a run
    made again with a longer sleep stored beside the first, superseded), each said through log
    with the figures it read. The caller holds the measuring lock and built the programs."""
    for v in variants:
        for n in sorted({1, *ns}):
            log(f"books: {v.name} at N={n:,}, sleep {format_number(sleep)} s …")
            *superseded, record = run_long_enough(v, n, sleep, label, memory_cap=memory_cap)
            for old in superseded:
                log(f"  {old.verdict}: {old.reason}; {old.remedy}")
                store.add_run(old)
            store.add_run(record)
            found = ", ".join(f"{k} {b / 1024:,.0f} KiB" for k, b in (record.books or {}).items())
            log(f"  {record.verdict}{': ' + record.reason if record.reason else ''}; {found}")
