"""The record of the test command's runs: one line per run, appended.

    python scripts/suite_runs.py record FILE --junit PREFIX --wall S [--group NAME=S]... [--where TEXT]
    python scripts/suite_runs.py record FILE --wall S [--where TEXT]   # a quick start (scripts/quickstart)

scripts/test appends one line to FILE when MEMRUN_TEST_RECORD=FILE is set (MEMRUN_TEST_WHERE says
how the clone was made: "purged fresh clone after the quick start", "CI"...): the commit, the day,
the wall time of the command and of each group, and what its JUnit files counted. The table of
runs in docs/development.md is made from FILE by `memrun derive suite-runs FILE`
(runner/derive/suite_runs.py), in a generated block that `memrun derive` writes.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.derive.suite_runs import GROUPS, minutes  # noqa: E402


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
    cpu: dict[str, float] | None = None,
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
    if cpu:
        line["groups_cpu_s"] = {k: round(v) for k, v in cpu.items()}
    if prefix is None:
        line["what"] = "quickstart"
    with file.open("a") as f:
        f.write(json.dumps(line) + "\n")
    return line


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
    rec.add_argument("--cpu", action="append", default=[], metavar="NAME=S", help="a group's CPU time")
    rec.add_argument("--where", default="", help="how the clone was made (MEMRUN_TEST_WHERE)")
    rec.add_argument("--commit", help="the commit that ran, when it is not this checkout's HEAD (a CI run's)")
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
    groups = dict(_group(g) for g in args.group)
    cpu = dict(_group(g) for g in args.cpu)
    line = record(args.file, args.junit, args.wall, groups, args.where, commit=args.commit, cpu=cpu)
    print(f"test: recorded in {args.file}: {line['commit']}, {minutes(line['wall_s'])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
