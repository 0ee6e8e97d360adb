"""The table of the test command's runs (docs/development.md's), made from their record.

scripts/test appends one line per run to the record (docs/suite-runs.jsonl, through
scripts/suite_runs.py when MEMRUN_TEST_RECORD=FILE is set; MEMRUN_TEST_WHERE says how the clone
was made), and scripts/quickstart one line for its own wall time (`"what": "quickstart"`). The
table stands in a generated block, `<!-- derived: memrun derive suite-runs FILE -->`, so that no
figure of it is typed by hand. Rows written before the record existed carry "transcribed": copied
from the logs of their runs into the record once, marked † in the table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GROUPS = ("builds", "unbuilt", "parallel", "serial", "guest")  # in the order the table names them


def minutes(s: float) -> str:
    m, sec = divmod(round(s), 60)
    return f"{m} min {sec} s" if m else f"{sec} s"


def _tests(r: dict[str, Any]) -> str:
    """What the run counted; a count its log did not keep (a transcribed row's) is left out."""
    parts = [f"{r[key]:,} {key}" for key in ("passed", "failed") if r.get(key) is not None]
    if r.get("skipped") == 0:
        parts.append("none skipped")
    elif r.get("skipped"):
        parts.append(f"{r['skipped']:,} skipped")
    text = ", ".join(p for p in parts if p != "0 failed")
    note = r.get("note")
    return f"{text} ({note})" if text and note else text or note or ""


def _groups(r: dict[str, Any]) -> str:
    g = r.get("groups_s") or {}
    return ", ".join(f"{name} {g[name]:,} s" for name in GROUPS if name in g)


def table(rows: list[dict[str, Any]]) -> str:
    """One row per run of the test command, oldest first, with the quick start recorded before it
    in the same clone (`"what": "quickstart"`, same commit) beside it."""
    out = [
        "| commit | day | where | quick start | `bash scripts/test` | its groups | tests |",
        "|---|---|---|---|---|---|---|",
    ]
    before: dict[str, float] = {}  # commit -> its quick start's wall time, not yet in a row
    for r in rows:
        if r.get("what") == "quickstart":
            before[r["commit"]] = r["wall_s"]
            continue
        wall = r.get("quickstart_s") or before.pop(r["commit"], None)
        quick = minutes(wall) if wall else ""
        mark = " †" if r.get("transcribed") else ""
        out.append(
            f"| {r['commit']}{mark} | {r['date']} | {r.get('where', '')} | {quick} | {minutes(r['wall_s'])} "
            f"| {_groups(r)} | {_tests(r)} |"
        )
    return "\n".join(out) + "\n"


def latest_purged(rows: list[dict[str, Any]]) -> str:
    """The README's line: the newest run of the test command made after the quick start in a fresh
    clone on a purged machine that passed (a time beside the README's commands is a green run's),
    with that quick start: "17 min 18 s and 14 min 31 s (24f28df, 2026-11-28)". ValueError where
    the record has none."""
    quick: dict[str, float] = {}
    found = None
    for r in rows:
        if r.get("what") == "quickstart":
            quick[r["commit"]] = r["wall_s"]
        elif (
            "purged" in (r.get("where") or "")
            and "after the quick start" in (r.get("where") or "")
            and not r.get("failed")
        ):
            wall = r.get("quickstart_s") or quick.get(r["commit"])
            if wall:
                found = (wall, r)
    if found is None:
        raise ValueError("no run after the quick start on a purged machine")
    wall, r = found
    return f"{minutes(wall)} and {minutes(r['wall_s'])} ({r['commit']}, {r['date']})"


def load(file: Path) -> list[dict[str, Any]]:
    """The record's lines, in order. OSError or ValueError for a file that cannot be read."""
    return [json.loads(line) for line in file.read_text().splitlines() if line.strip()]
