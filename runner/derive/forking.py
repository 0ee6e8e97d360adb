"""Calls run side by side, each in a process forked for it alone from this one, their results
read back in order.

Why a fresh fork per call, and not a pool of workers that each run many: whatever a call changes
(matplotlib's state, a cache it fills, the data it was handed) dies with its process, so no call
ever sees what another did, and every call starts from the same state: this process's at the
fork. That is also what makes it cheap: what this process imported and loaded before forking
(runner.derive.warm) every child has without doing it again, copy-on-write, and a child that
changes it changes only its own copy. gc.freeze() keeps the children's garbage collector from
walking (and so copying) every inherited object. A result comes back through a file (a pipe
would block a child whose result outgrows it while this process waits for another).
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import pickle
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class ChildFailed(RuntimeError):
    """A call's process ended without a result (killed, or a result that cannot be pickled)."""


def _child(call: Callable[[], Any], result: Path) -> None:
    try:
        outcome: tuple[str, Any] = ("made", call())
    except BaseException as e:  # handed back to the parent, which raises it
        outcome = ("failed", e)
    try:
        data = pickle.dumps(outcome)
    except Exception as e:  # a result or exception that does not pickle: its last line, as text
        what = outcome[1] if outcome[0] == "failed" else e
        last = "".join(traceback.format_exception_only(what)).strip().splitlines() or ["no message"]
        data = pickle.dumps(("failed", ChildFailed(last[-1])))
    result.write_bytes(data)


def _read(result: Path, exitcode: int | None) -> tuple[str, Any]:
    try:
        return pickle.loads(result.read_bytes())  # type: ignore[no-any-return]
    except FileNotFoundError:
        return "failed", ChildFailed(f"its process ended with status {exitcode} and no result")


def each_forked(calls: Sequence[Callable[[], T]], results: Path, workers: int) -> list[T]:
    """Every call's result, in order, `workers` calls at a time, each in a process forked for it
    (results: a directory for the files the results come back through). The first call that
    raises ends the rest, and its exception is raised here."""
    context = multiprocessing.get_context("fork")
    running: dict[int, tuple[int, Any]] = {}  # sentinel -> (index, process)
    out: dict[int, T] = {}
    pending = list(enumerate(calls))
    results.mkdir(parents=True, exist_ok=True)
    gc.collect()
    gc.freeze()  # what every child inherits is never walked, so never copied, by its collector
    try:
        while pending or running:
            while pending and len(running) < max(1, workers):
                i, call = pending.pop(0)
                process = context.Process(target=_child, args=(call, results / f"{i}.result"), daemon=True)
                process.start()
                running[process.sentinel] = (i, process)
            for sentinel in multiprocessing.connection.wait(list(running)):
                i, process = running.pop(sentinel)  # type: ignore[index]
                process.join()
                kind, value = _read(results / f"{i}.result", process.exitcode)
                if kind == "failed":
                    raise value
                out[i] = value
    finally:
        for _, process in running.values():
            process.terminate()
            process.join()
        gc.unfreeze()
    return [out[i] for i in range(len(calls))]
