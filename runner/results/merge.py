"""`memrun merge OUT DIR…`: results directories (the shards of one sweep, most often) joined into
one, so that report, plot and compare see one sweep.

Two rules keep the joined directory honest. A run is never there twice: runs, timelines and
sweep records are keyed by their ids, capacity rows by their content, and what OUT already holds
is not added again (so merging twice changes nothing). And runs of different machines never pool
under one label: for every label, each directory's machine fingerprint (runner.fingerprint, from
its sweeps' start records) must agree with the others' and with OUT's, or nothing is written and
the error names the label, the directories and what differs. Give such runs their own labels
(`sweep --label`) and merge again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner import fingerprint
from runner.results.store import CAPACITY, RUNS, SWEEPS, TIMELINES, ResultsDir, ResultsError, read_jsonl


class MergeError(ResultsError):
    """Results that cannot be joined; the message says which and why, in one line."""


@dataclass
class Merged:
    """What a merge added to OUT, and what it found there already."""

    runs: int = 0
    sweeps: int = 0
    capacity: int = 0
    already: int = 0  # runs OUT (or an earlier directory of this merge) held already
    sources: list[str] = field(default_factory=list)


@dataclass
class _Source:
    path: Path
    runs: list[dict[str, Any]]
    sweeps: list[dict[str, Any]]
    timelines: dict[str, Any]
    capacity: list[dict[str, Any]]

    @classmethod
    def read(cls, path: Path) -> _Source:
        def rows(name: str) -> list[dict[str, Any]]:
            return read_jsonl(path / name) if (path / name).exists() else []

        timelines = {r["run_id"]: r["timeline"] for r in rows(TIMELINES) if "run_id" in r}
        return cls(path, rows(RUNS), rows(SWEEPS), timelines, rows(CAPACITY))

    def prints(self) -> dict[str, dict[str, Any]]:
        """label -> the machine fingerprint of this directory's sweeps of that label."""
        by_label: dict[str, list[dict[str, Any]]] = {}
        for s in self.sweeps:
            if s.get("event") == "start":
                by_label.setdefault(str(s.get("label")), []).append(fingerprint.of_sweep(s))
        return {label: fingerprint.merged(prints) for label, prints in by_label.items()}


def _check_machines(sources: Sequence[_Source]) -> None:
    seen: dict[str, tuple[Path, dict[str, Any]]] = {}
    for src in sources:
        for label, fp in src.prints().items():
            if label not in seen:
                seen[label] = (src.path, fp)
                continue
            first, other = seen[label]
            if diff := fingerprint.differences(other, fp):
                what = ", ".join(f"{d.field.title} {d.before} vs {d.after}" for d in diff)
                raise MergeError(
                    f"label {label!r}: {first} and {src.path} are different machines ({what}); their "
                    "runs must not pool under one label: sweep with --label NAME on each, then merge"
                )
            seen[label] = (first, fingerprint.merged([other, fp]))


def _key(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True)


def merge(out: ResultsDir, dirs: Iterable[str | Path]) -> Merged:
    """Join the directories into OUT (created if missing). MergeError before anything is written
    when a directory has no results or two machines share a label."""
    out.check_writable()
    sources = []
    for d in dirs:
        path = Path(d)
        if not any((path / name).exists() for name in (RUNS, CAPACITY, SWEEPS)):
            raise MergeError(f"{path}: no {RUNS}, {CAPACITY} or {SWEEPS} there: not a results directory")
        if path.resolve() == out.path.resolve():
            raise MergeError(f"{path} is OUT itself: merge other directories into it")
        sources.append(_Source.read(path))
    have = _Source.read(out.path) if out.path.exists() else _Source(out.path, [], [], {}, [])
    _check_machines([have, *sources])

    runs = {r.get("run_id") for r in have.runs}
    sweeps = {(s.get("sweep_id"), s.get("event"), _key(s)) for s in have.sweeps}
    capacity = {_key(c) for c in have.capacity}
    done = Merged(sources=[str(s.path) for s in sources])
    out.path.mkdir(parents=True, exist_ok=True)
    for src in sources:
        for s in src.sweeps:
            key = (s.get("sweep_id"), s.get("event"), _key(s))
            if key not in sweeps:
                sweeps.add(key)
                out.add_sweep(s)
                done.sweeps += 1
        for r in src.runs:
            if r.get("run_id") in runs:
                done.already += 1
                continue
            runs.add(r.get("run_id"))
            out.add_run(r, src.timelines.get(r.get("run_id", "")))
            done.runs += 1
        for c in src.capacity:
            if _key(c) not in capacity:
                capacity.add(_key(c))
                out.add_capacity(c)
                done.capacity += 1
    return done
