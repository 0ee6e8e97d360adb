"""Rewrite results directories in the current format, one label to a machine, with each run's
program where git still knows it.

    .venv/bin/python scripts/migrate_results.py plots/*/ [--dry-run]

What it does, over all the directories named together (a label is one machine across all of
them, not only within one):
1. every record of runs.jsonl, sweeps.jsonl and capacity.jsonl goes through the migration a
   load applies (runner.results.migrate: the format, every row's workload), and a capacity
   answer written before answers kept their label takes its search's, as loading does;
2. a label whose sweeps ran on machines that differ (runner.results.labels.split: two kernel
   builds under the host name) keeps the machine of its latest sweep, the others become
   LABEL@KERNEL, in runs, sweeps and capacity answers alike;
3. a run without a `program` gets the digest of its task folder at the git revision its sweep
   recorded (runner.tasks.program.digest_of over git's objects, what a checkout of that revision
   gives), when that is known: the revision is clean, or it was dirty and no commit between it
   and the commit that stored the sweep's runs changed that folder. A capacity answer without one
   gets its runs' when they all have the same.
Timelines are left as they are. Each file is replaced in one step (write, then rename). It
prints what it changed and the labels that span machines before and after.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from runner.results import labels  # noqa: E402
from runner.results.store import CAPACITY, RUNS, SWEEPS, read_jsonl  # noqa: E402
from runner.tasks.program import digest_of  # noqa: E402

Rows = list[dict[str, Any]]


def _git(*args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, check=True).stdout


@functools.cache
def _tree_digest(revision: str, folder: str) -> str | None:
    """The program digest of tasks/FOLDER at a revision, from git's objects; None when the
    revision or the folder is not in this repository."""
    try:
        listing = _git("ls-tree", "-r", "-z", "--full-tree", revision, "--", f"tasks/{folder}/")
    except subprocess.CalledProcessError:
        return None
    files = []
    for entry in filter(None, listing.split(b"\0")):
        meta, path = entry.split(b"\t", 1)
        _mode, kind, sha = meta.split()
        if kind == b"blob":
            relative = PurePosixPath(path.decode()).relative_to(f"tasks/{folder}")
            files.append((relative, _git("cat-file", "blob", sha.decode())))
    return digest_of(files) if files else None


@functools.cache
def _stored_in(where: str, sweep_id: str) -> str | None:
    """The first commit whose runs.jsonl of that directory holds the sweep's runs."""
    found = _git("log", "--reverse", "--format=%H", "-S", sweep_id, "--", f"{where}/{RUNS}").split()
    return found[0].decode() if found else None


@functools.cache
def _unchanged(revision: str, commit: str, folder: str) -> bool:
    return not _git("diff", "--name-only", revision, commit, "--", f"tasks/{folder}/").strip()


def _program(where: Path, sweep: dict[str, Any] | None, folder: str) -> tuple[str | None, str]:
    """(digest, how it is known) of a run's program, or (None, why not)."""
    revision = str((sweep or {}).get("git_revision") or "")
    if not revision:
        return None, "no git revision recorded"
    clean = revision.removesuffix("-dirty")
    how = "clean revision"
    if clean != revision:
        commit = _stored_in(str(where.resolve().relative_to(ROOT)), str((sweep or {})["sweep_id"]))
        if commit is None or not _unchanged(clean, commit, folder):
            return None, "dirty revision, folder changed before the runs were stored"
        how = "dirty revision, folder unchanged until the runs were stored"
    found = _tree_digest(clean, folder)
    return (found, how) if found else (None, "revision or folder not in this repository")


def _write(path: Path, rows: Rows) -> None:
    text = "".join(json.dumps(r, separators=(",", ":"), default=str) + "\n" for r in rows)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def _rows(path: Path) -> Rows:
    return read_jsonl(path) if path.exists() else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    args = parser.parse_args()
    dirs = [d for d in args.dirs if (d / RUNS).exists()]
    raw_without_workload = 0
    loaded = {}
    for d in dirs:
        raw = [json.loads(line) for line in (d / RUNS).read_text().splitlines() if line.strip()]
        raw_without_workload += sum("workload" not in r for r in raw)
        loaded[d] = (_rows(d / RUNS), _rows(d / SWEEPS), _rows(d / CAPACITY))
    before = labels.sessions((d, sweeps) for d, (_, sweeps, _) in loaded.items())
    print(f"rows without a workload before: {raw_without_workload}")
    _spans("before", before, dirs)
    renamed = labels.split(before)
    counts: Counter[str] = Counter()
    for d, (runs, sweeps, capacity) in loaded.items():
        starts = {s["sweep_id"]: s for s in sweeps if s.get("event") == "start"}
        for row in capacity:  # as load_capacity reads it: the search's label
            if row.get("label") is None and (session := starts.get(row.get("capacity_id"))):
                row["label"] = session.get("label")
                counts["capacity answers given their search's label"] += 1
        mine = {sid: label for (where, sid), label in renamed.items() if where == d}
        counts["records relabelled"] += labels.apply(mine, runs, sweeps, capacity)
        for row in runs:
            if row.get("program"):
                continue
            digest, how = _program(d, starts.get(row.get("sweep_id")), row.get("folder") or row["variant"])
            counts[f"runs {'given a program' if digest else 'left without one'}: {how}"] += 1
            if digest:
                row["program"] = digest
        programs = {r.get("run_id"): r.get("program") for r in runs}
        for row in capacity:
            if not row.get("program"):
                found = {programs.get(i) for i in row.get("probe_ids") or []}
                if len(found) == 1 and None not in found:
                    row["program"] = found.pop()
                    counts["capacity answers given their runs' program"] += 1
        if not args.dry_run:
            for name, rows in ((RUNS, runs), (SWEEPS, sweeps), (CAPACITY, capacity)):
                if rows:
                    _write(d / name, rows)
    for what, n in sorted(counts.items()):
        print(f"{what}: {n}")
    after = labels.sessions((d, sweeps) for d, (_, sweeps, _) in loaded.items())
    _spans("after", after, dirs)
    for (where, sid), label in sorted(renamed.items(), key=lambda x: (str(x[0][0]), x[0][1])):
        print(f"  {where} {sid}: {label}")


def _spans(when: str, found: list[labels.Session], dirs: list[Path]) -> None:
    within = {str(d): labels.spanning([s for s in found if s.where == d]) for d in dirs}
    print(f"labels spanning more than one machine {when}, across all: {labels.spanning(found) or 'none'}")
    print(f"  within one directory: {({d: s for d, s in within.items() if s}) or 'none'}")


if __name__ == "__main__":
    main()
