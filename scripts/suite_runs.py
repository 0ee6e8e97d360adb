"""The record of the test command's runs, and the README's table made from it.

    python scripts/suite_runs.py record FILE --junit PREFIX --wall S [--group NAME=S]... [--where TEXT]
    python scripts/suite_runs.py record FILE --wall S [--where TEXT]   # a quick start (scripts/quickstart)
    python scripts/suite_runs.py table FILE      # the table of FILE's runs, in Markdown
    python scripts/suite_runs.py write README    # README's tables made again from their files
    python scripts/suite_runs.py check README    # exit 1 naming each table that is not its file's

scripts/test appends one line to FILE when MEMRUN_TEST_RECORD=FILE is set (MEMRUN_TEST_WHERE says
how the clone was made: "purged fresh clone after the quick start", "CI"...): the commit, the day,
the wall time of the command and of each group, and what its JUnit files counted. The README's
table of runs sits between `<!-- suite-runs: FILE -->` and `<!-- /suite-runs -->`, and a test
keeps it equal to `table FILE`, so that no figure of it is typed by hand. Rows written before the
record existed carry "transcribed": copied from the logs of their runs into FILE once.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"<!-- suite-runs: (\S+) -->\n(.*?)<!-- /suite-runs -->", re.S)
GROUPS = ("builds", "unbuilt", "parallel", "serial", "guest")  # in the order the table names them


def counted(prefix: str) -> dict[str, Any]:
    """passed, failed, skipped and the failed tests' ids over PREFIX-*.xml (scripts/test's groups)."""
    out: dict[str, Any] = {"passed": 0, "failed": 0, "skipped": 0, "failures": []}
    for junit in sorted(Path(prefix).parent.glob(Path(prefix).name + "-*.xml")):
        for case in ET.parse(junit).getroot().iter("testcase"):
            tags = {child.tag for child in case}
            if tags & {"failure", "error"}:
                out["failed"] += 1
                out["failures"].append(f"{case.get('classname')}::{case.get('name')}")
            elif "skipped" in tags:
                out["skipped"] += 1
            else:
                out["passed"] += 1
    return out


def record(
    file: Path,
    prefix: str | None,
    wall_s: float,
    groups: dict[str, float],
    where: str,
    commit: str | None = None,
) -> dict[str, Any]:
    """Append this run's line to file and return it; prefix None: a quick start's (no tests).
    commit None: this checkout's HEAD, "+changes" when its files differ from it."""
    if commit is None:
        head = subprocess.run(
            ["git", "rev-parse", "--short=7", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT, check=False).returncode != 0
        commit = head + ("+changes" if dirty else "")
    line = {
        "commit": commit,
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "where": where,
        "wall_s": round(wall_s),
        **({"groups_s": {k: round(v) for k, v in groups.items()}, **counted(prefix)} if prefix else {}),
    }
    if prefix is None:
        line["what"] = "quickstart"
    with file.open("a") as f:
        f.write(json.dumps(line) + "\n")
    return line


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
    """The README's table: one row per run of the test command, oldest first, with the quick start
    recorded before it in the same clone (`"what": "quickstart"`, same commit) beside it."""
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


def load(file: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in file.read_text().splitlines() if line.strip()]


def stale(readme: Path) -> list[str]:
    """Each block of readme whose table is not what its file gives."""
    text = readme.read_text()
    return [
        f"{readme.name}: the table of {m.group(1)}"
        for m in BLOCK.finditer(text)
        if m.group(2) != table(load(ROOT / m.group(1)))
    ]


def write(readme: Path) -> None:
    """Each block of readme made again from its file."""
    text = BLOCK.sub(
        lambda m: f"<!-- suite-runs: {m.group(1)} -->\n{table(load(ROOT / m.group(1)))}<!-- /suite-runs -->",
        readme.read_text(),
    )
    readme.write_text(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="suite_runs.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="what", required=True)
    rec = sub.add_parser("record", help="append one run's line to FILE")
    rec.add_argument("file", type=Path)
    rec.add_argument("--wall", type=float, required=True, help="the command's wall time, in seconds")
    rec.add_argument("--junit", help="scripts/test's JUnit prefix (none: a quick start's line)")
    rec.add_argument("--group", action="append", default=[], metavar="NAME=S", help="a group's wall time")
    rec.add_argument("--where", default="", help="how the clone was made (MEMRUN_TEST_WHERE)")
    rec.add_argument("--commit", help="the commit that ran, when it is not this checkout's HEAD (a CI run's)")
    for name, help_ in (
        ("table", "print the table of FILE's runs, in Markdown"),
        ("write", "make README's tables again from their files"),
        ("check", "exit 1 naming each table of README that is not its file's"),
    ):
        sub.add_parser(name, help=help_).add_argument("file", type=Path)
    return parser


def _group(text: str) -> tuple[str, float]:
    name, sep, seconds = text.partition("=")
    if not sep or name not in GROUPS:
        raise SystemExit(
            f"suite_runs.py: --group takes NAME=S with NAME one of {', '.join(GROUPS)}, not {text!r}"
        )
    return name, float(seconds)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.what == "record":
        groups = dict(_group(g) for g in args.group)
        line = record(args.file, args.junit, args.wall, groups, args.where, commit=args.commit)
        print(f"test: recorded in {args.file}: {line['commit']}, {minutes(line['wall_s'])}", file=sys.stderr)
        return 0
    if args.what == "table":
        print(table(load(args.file)), end="")
        return 0
    if args.what == "write":
        write(args.file)
        return 0
    bad = stale(args.file)
    for b in bad:
        print(f"stale: {b} (python scripts/suite_runs.py write {args.file})", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
