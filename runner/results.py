"""Stored results: one JSON line per run, one JSON line of metadata per sweep (pyperf-style split).

A results directory holds `runs.jsonl` (appended and flushed as each run finishes, so a crash
loses nothing), `sweeps.jsonl` (host, limits, versions, command line of each sweep) and
`timelines.jsonl` (each run's memory timeline, kept apart so the run table stays small).
Several directories, from several sweeps or machines, load together into one table.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

RUNS = "runs.jsonl"
SWEEPS = "sweeps.jsonl"
TIMELINES = "timelines.jsonl"

# The metrics a user can ask for: column -> what it means (used in captions and --help).
METRICS = {
    "peak_rss": "peak RSS of the process tree (kernel high-water mark, or sampled tree sum if larger)",
    "cgroup_peak": "peak of the run's memory cgroup (includes kernel memory and first-touched page cache)",
    "sampled_peak_rss": "highest sampled sum of RSS over the process tree",
}
SPREAD_LIMIT = 0.05


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

    def add_run(self, row: dict[str, Any], timeline: list[Any] | None = None) -> None:
        if timeline is not None:
            _append(self.path / TIMELINES, {"run_id": row["run_id"], "timeline": timeline})
        _append(self.path / RUNS, row)

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


REQUIRED = ("variant", "n", "verdict", "peak_rss")


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


def load_runs(paths: Iterable[Path]) -> pd.DataFrame:
    """All run rows of the given results directories (or runs.jsonl files) as one table."""
    rows = []
    for f in _runs_files(paths):
        for i, row in enumerate(read_jsonl(f), 1):
            missing = [k for k in REQUIRED if k not in row]
            if missing:
                raise ResultsError(f"{f}:{i}: record lacks {', '.join(missing)}")
            row["source"] = str(f.parent)
            rows.append(row)
    if not rows:
        raise ResultsError("no run records in " + ", ".join(map(str, paths)))
    return pd.DataFrame(rows)


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


def _reason(last: pd.Series, n_valid: int, metric: str) -> str:
    """Why a cell has no number. A missing reason is NaN once in a DataFrame, which must not
    become the text "nan"; valid runs without the metric (no cgroup on that machine) say so."""
    if n_valid:
        return f"no {metric} recorded"
    reason = last.get("reason")
    return reason if isinstance(reason, str) else ""


def summarize(runs: pd.DataFrame, metric: str = "peak_rss") -> pd.DataFrame:
    """One row per (variant, n): median, min and max of metric over valid repeats, the spread
    flag, median spawn time, and -- where no run was valid -- the verdict and reason instead.

    Superseded rows (an invalid run that --sleep auto ran again) are left out.
    """
    if "superseded" in runs:
        runs = runs[~runs["superseded"].fillna(False).astype(bool)]
    out = []
    for (variant, n), cell in runs.groupby(["variant", "n"], sort=False):
        valid = cell[cell["verdict"] == "valid"]
        values = valid[metric].dropna() if metric in valid else pd.Series(dtype=float)
        last = cell.iloc[-1]
        rec: dict[str, Any] = {
            "variant": variant,
            "n": int(n),
            "runs": len(cell),
            "valid": len(valid),
            "median": float(values.median()) if len(values) else None,
            "min": float(values.min()) if len(values) else None,
            "max": float(values.max()) if len(values) else None,
            "spawn_s": float(valid["ready_s"].median()) if len(valid) else None,
            "sleep_s": float(valid["sleep_s"].max()) if len(valid) else float(last.get("sleep_s", "nan")),
            "verdict": "valid" if len(values) else str(last["verdict"]),
            "reason": None if len(values) else _reason(last, len(valid), metric),
        }
        rec["spread"] = (rec["max"] - rec["min"]) / rec["median"] if rec["median"] else None
        rec["spread_flag"] = bool(rec["spread"] is not None and rec["spread"] > SPREAD_LIMIT)
        out.append(rec)
    table = pd.DataFrame(out)
    # Per-task cost against the same variant's N=1 baseline: (M(N) - M(1)) / N.
    base = {r["variant"]: r["median"] for r in out if r["n"] == 1 and r["median"] is not None}
    table["per_task"] = [
        (r["median"] - base[r["variant"]]) / r["n"]
        if r["median"] is not None and r["variant"] in base and r["n"] > 1
        else None
        for r in out
    ]
    return table
