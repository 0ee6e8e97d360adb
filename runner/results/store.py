"""The results store: one JSON line per run, one JSON line of metadata per sweep (pyperf-style split).

A results directory holds `runs.jsonl` (appended and flushed as each run finishes, so a crash
loses nothing), `sweeps.jsonl` (host, limits, versions, command line of each sweep) and
`timelines.jsonl` (each run's memory timeline, kept apart so the run table stays small).
Several directories, from several sweeps or machines, load together into one table.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.results.record import RunRecord

RUNS = "runs.jsonl"
SWEEPS = "sweeps.jsonl"
TIMELINES = "timelines.jsonl"
CAPACITY = "capacity.jsonl"  # one result per (variant, budget) of `memrun capacity`


class ResultsError(ValueError):
    """A results file is missing, truncated or corrupt; the message names the file and line."""


def _append(path: Path, record: dict[str, Any]) -> None:
    line = json.dumps(record, separators=(",", ":"), default=str) + "\n"
    with open(path, "a") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


@dataclass
class ResultsDir:
    """Append-only writer for one results directory."""

    path: Path

    def __post_init__(self) -> None:
        self.path = Path(self.path)

    def check_writable(self) -> None:
        """Fail early, before any run, when the directory cannot be written."""
        if self.path.exists() and not self.path.is_dir():
            raise ResultsError(f"{self.path} exists and is not a directory")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ResultsError(f"cannot create {self.path}: {e.strerror}") from None
        if not os.access(self.path, os.W_OK | os.X_OK):
            raise ResultsError(f"{self.path} is not writable")
        for name in (RUNS, SWEEPS, TIMELINES):
            f = self.path / name
            if f.exists() and not os.access(f, os.W_OK):
                raise ResultsError(f"{f} is not writable")

    def add_sweep(self, meta: dict[str, Any]) -> None:
        _append(self.path / SWEEPS, meta)

    def add_run(self, record: RunRecord | Mapping[str, Any], timeline: list[Any] | None = None) -> None:
        """Append one run (and its timeline first, so a run row never points at nothing)."""
        row = record.to_json() if isinstance(record, RunRecord) else dict(record)
        if timeline is not None:
            _append(self.path / TIMELINES, {"run_id": row["run_id"], "timeline": timeline})
        _append(self.path / RUNS, row)

    def add_capacity(self, result: dict[str, Any]) -> None:
        _append(self.path / CAPACITY, result)

    def existing_capacity(self) -> list[dict[str, Any]]:
        return read_jsonl(self.path / CAPACITY) if (self.path / CAPACITY).exists() else []

    def existing_rows(self) -> list[dict[str, Any]]:
        return read_jsonl(self.path / RUNS) if (self.path / RUNS).exists() else []


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every record of a JSONL file; a bad line is a ResultsError naming file and line."""
    out = []
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: cannot read: {e}") from None
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise ResultsError(f"{path}:{i}: corrupt or truncated record ({e.msg})") from None
        if not isinstance(record, dict):
            raise ResultsError(f"{path}:{i}: not a JSON object")
        out.append(record)
    return out


def _runs_files(paths: Iterable[Path]) -> list[Path]:
    files = []
    for p in map(Path, paths):
        if p.is_dir():
            if not (p / RUNS).exists():
                raise ResultsError(f"{p}: no {RUNS} here (not a memrun results directory)")
            files.append(p / RUNS)
        elif p.exists():
            files.append(p)
        else:
            raise ResultsError(f"{p}: no such file or directory")
    return files


def load_records(paths: Iterable[Path]) -> list[tuple[Path, RunRecord]]:
    """Every run record of the given results directories (or runs.jsonl files), with its directory."""
    paths = list(paths)
    out = []
    for f in _runs_files(paths):
        for i, row in enumerate(read_jsonl(f), 1):
            try:
                out.append((f.parent, RunRecord.from_json(row)))
            except KeyError as e:
                raise ResultsError(f"{f}:{i}: record lacks {e.args[0]}") from None
            except TypeError as e:
                raise ResultsError(f"{f}:{i}: record has a field of the wrong kind ({e})") from None
    if not out:
        raise ResultsError("no run records in " + ", ".join(map(str, paths)))
    return out


def load_sweeps(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """One record per sweep: its start record (host, limits, versions) merged with its end record."""
    merged: dict[str, dict[str, Any]] = {}
    for f in _runs_files(paths):
        meta = f.parent / SWEEPS
        if meta.exists():
            for record in read_jsonl(meta):
                merged.setdefault(str(record.get("sweep_id")), {}).update(record)
    for record in merged.values():
        record.pop("event", None)
    return list(merged.values())


def load_capacity(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Every capacity result (one per variant and budget) in the given results directories."""
    out = []
    for f in _runs_files(paths):
        if (f.parent / CAPACITY).exists():
            out += [{**r, "source": str(f.parent)} for r in read_jsonl(f.parent / CAPACITY)]
    return out
