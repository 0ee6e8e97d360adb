"""Reading stored results back: every run record of the directories a user names (with its
directory), each sweep's start and end merged, and the capacity answers. A bad line is a
ResultsError naming file and line; a torn last line is left out with a TornRecordWarning."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from runner.results.capacity import CapacityResult
from runner.results.record import RunRecord
from runner.results.store import CAPACITY, RUNS, SWEEPS, ResultsError, _records, read_jsonl


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
        for i, row in _records(f):
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


def capacity_by_label(results: Iterable[dict[str, Any]]) -> dict[str | None, list[dict[str, Any]]]:
    """The answers per label, in the order given: a table or figure never mixes two machines' or
    kernels' answers (the label of a row from before rows kept one is its search's, from
    load_capacity)."""
    out: dict[str | None, list[dict[str, Any]]] = {}
    for r in results:
        out.setdefault(r.get("label"), []).append(r)
    return out


def latest_capacity(results: Iterable[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """The last result per (variant, budget) in the order given: a later search replaces one."""
    return {(r["variant"], int(r["budget_bytes"])): r for r in results}


def load_capacity(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Every capacity result (one per variant and budget) in the given results directories."""
    out = []
    for f in _runs_files(paths):
        path = f.parent / CAPACITY
        if path.exists():
            labels = _session_labels(f.parent / SWEEPS)
            # through the typed record: a row from before a field existed gets its default
            for i, row in _records(path):
                try:
                    result = CapacityResult.from_json(row)
                except KeyError as e:
                    raise ResultsError(f"{path}:{i}: capacity result lacks {e.args[0]}") from None
                if result.label is None:  # written before rows kept it: its search's label
                    result.label = labels.get(result.capacity_id)
                out.append({**result.to_json(), "source": str(f.parent)})
    return out


def _session_labels(path: Path) -> dict[str, str]:
    """sweep (or capacity search) id -> the label its start record gives."""
    if not path.exists():
        return {}
    rows = read_jsonl(path)
    return {str(r["sweep_id"]): str(r["label"]) for r in rows if r.get("event") == "start" and r.get("label")}
