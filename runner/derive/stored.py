"""The stored results a derive command reads, each read once per process and kept: a page's
blocks ask the same directory many times, and `memrun derive` reads every directory its commands
name once before it forks them (runner.derive.forking), so that each forked command has them."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pandas as pd

from runner.derive import answers
from runner.results import load_sweeps
from runner.results.store import RUNS, ResultsError
from runner.results.summary import load_runs
from runner.results.timelines import load_timelines

SELECTION = re.compile(r"^(?P<dir>[^:#]+)(?::(?P<label>[^#]+))?(?:#(?P<lo>\d+)-(?P<hi>\d*))?$")


@functools.cache
def stored(directory: str) -> tuple[pd.DataFrame, tuple[dict[str, Any], ...]]:
    """A results directory's runs and sweep records."""
    path = Path(directory)
    return load_runs([path]), tuple(load_sweeps([path]))


@functools.cache
def stored_timelines(source: str, run_ids: frozenset[str]) -> dict[str, Any]:
    """The timelines of these runs in one results directory (the file is parsed whole each time)."""
    return load_timelines(Path(source), run_ids)


def directories(words: list[str]) -> list[str]:
    """The results directories that a command's arguments name as selections (`DIR[:LABEL][#K-M]`,
    alone or as `--from NAME=…`): what `memrun derive` reads once before it forks the commands."""
    found = []
    for word in words:
        m = SELECTION.match(word.partition("=")[2] or word)
        if m and (Path(m["dir"]) / RUNS).is_file():
            found.append(m["dir"].rstrip("/"))
    return found


def warm(directory: str) -> None:
    """Read a results directory's runs, sweeps and capacity answers into this process's caches,
    as the first selection of it would; one that cannot be read is left for that selection to
    say why."""
    try:
        stored(directory)
        answers.warm(directory)
    except (ResultsError, ValueError, OSError):
        pass
