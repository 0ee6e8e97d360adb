"""One label, one machine: refusing a label another machine's runs hold, and finding the labels
whose sweeps ran on machines that differ, with the labels that set them apart.

A label pools runs: report, compare and capacity's evidence take every run of one label as one
population. `sweep` and `capacity` refuse to store runs under a label whose runs in the same
directory came from another machine (check_free), as `merge` refuses to join them. Sweeps made
before that could put two kernel builds under the host name; split() finds them over
any set of results directories (each sweep's machine is its start record's fingerprint,
runner.fingerprint) and names each machine but the one of the label's latest sweep
`LABEL@KERNEL`, as a guest's runs are named (`--kernel`): the label people know stays with the
machine that measured last.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner import fingerprint
from runner.results.store import SWEEPS, ResultsError, read_jsonl


@dataclass(frozen=True)
class Session:
    """One sweep or capacity search: where it is stored, its id, label and machine."""

    where: Path
    sweep_id: str
    label: str
    started_at: str
    machine: dict[str, Any]


def sessions(dirs: Iterable[tuple[Path, list[dict[str, Any]]]]) -> list[Session]:
    """Every sweep's start record of the given (directory, sweeps.jsonl records) with a label."""
    out = []
    for where, sweeps in dirs:
        for s in sweeps:
            if s.get("event") == "start" and s.get("label") and s.get("sweep_id"):
                started = str(s.get("started_at") or s["sweep_id"])
                machine = fingerprint.of_sweep(s)
                out.append(Session(Path(where), str(s["sweep_id"]), str(s["label"]), started, machine))
    return out


def machines(found: list[Session]) -> dict[str, list[list[Session]]]:
    """label -> its sessions, one list per machine (fingerprints that conflict are two)."""
    by_label: dict[str, list[Session]] = {}
    for s in found:
        by_label.setdefault(s.label, []).append(s)
    out: dict[str, list[list[Session]]] = {}
    for label, mine in by_label.items():
        mine = sorted(mine, key=lambda s: (s.started_at, s.sweep_id))
        groups: dict[int, list[Session]] = {}
        for s, k in zip(mine, fingerprint.clusters([s.machine for s in mine]), strict=True):
            groups.setdefault(k, []).append(s)
        out[label] = list(groups.values())
    return out


def spanning(found: list[Session]) -> dict[str, int]:
    """The labels that span more than one machine, with how many."""
    return {label: len(groups) for label, groups in machines(found).items() if len(groups) > 1}


def split(found: list[Session]) -> dict[tuple[Path, str], str]:
    """(directory, sweep id) -> its new label, for every session whose label spans machines and
    whose machine is not that of the label's latest session. The new label is `LABEL@KERNEL`
    (`~2`, `~3` added where two machines share a kernel), never one already in use."""
    taken = {s.label for s in found}
    out: dict[tuple[Path, str], str] = {}
    for label, groups in machines(found).items():
        if len(groups) < 2:
            continue
        latest = max(groups, key=lambda g: max((s.started_at, s.sweep_id) for s in g))
        for group in groups:
            if group is latest:
                continue
            kernel = next((s.machine["kernel"] for s in group if s.machine.get("kernel")), "other")
            new, k = f"{label}@{kernel}", 1
            while new in taken:
                k += 1
                new = f"{label}@{kernel}~{k}"
            taken.add(new)
            for s in group:
                out[(s.where, s.sweep_id)] = new
    return out


Rows = list[dict[str, Any]]


def apply(label_of: dict[str, str], runs: Rows, sweeps: Rows, capacity: Rows) -> int:
    """Give one directory's rows their sessions' new labels (sweep id -> label), in place: run
    rows by their sweep, sweep records by their id, capacity answers by their search. Returns how
    many records changed."""
    changed = 0
    for row in runs:
        if (new := label_of.get(str(row.get("sweep_id")))) and row.get("label") != new:
            row["label"] = new
            changed += 1
    for row in sweeps:
        if (new := label_of.get(str(row.get("sweep_id")))) and "label" in row and row["label"] != new:
            row["label"] = new
            changed += 1
    for row in capacity:
        if (new := label_of.get(str(row.get("capacity_id")))) and row.get("label") != new:
            row["label"] = new
            changed += 1
    return changed


class LabelTaken(ResultsError):
    """A sweep or search would store runs under a label another machine's runs already hold."""


def check_free(path: Path, label: str, machine: dict[str, Any]) -> None:
    """LabelTaken (one line: the label, the directory, what differs, the way out) when the results
    directory at path holds a sweep or search of `label` made on a machine whose fingerprint
    conflicts with `machine`: its runs and these would pool as one population."""
    if not (path / SWEEPS).exists():
        return
    mine = [s for s in sessions([(path, read_jsonl(path / SWEEPS))]) if s.label == label]
    for s in mine:
        if diff := fingerprint.differences(s.machine, machine):
            what = ", ".join(f"{d.field.title} {d.before} there, {d.after} here" for d in diff)
            raise LabelTaken(
                f"label {label!r} in {path} is another machine's ({what}): its runs and these must not "
                "pool; sweep with --label NAME"
            )
