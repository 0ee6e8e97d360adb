"""Where the test suite's time goes, by file, from pytest's JUnit XML (`pytest --junitxml=FILE`).

    python scripts/durations.py RUN.xml [RUN2.xml ...]                      # one run, by file
    python scripts/durations.py --before OLD.xml [...] -- NEW.xml [...]     # two runs side by side
    python scripts/durations.py --tally RUN.xml [...]                      # one closing line

Several files on one side are added up: scripts/test writes one per group (parallel, serial).
Each test's time is its setup, call and teardown (pytest's default junit_duration_report), so a
module fixture's cost lands on the first test that used it. With pytest-xdist the times are per
test, not wall: their sum is the work done, not how long the run took (scripts/test prints that).
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

Table = dict[str, list[float]]  # file -> [seconds, tests, tests not passed]


def by_file(junits: list[Path]) -> Table:
    """file -> [seconds, tests, tests not passed] over every testcase of the XML files."""
    out: Table = defaultdict(lambda: [0.0, 0, 0])
    for junit in junits:
        for case in ET.parse(junit).getroot().iter("testcase"):
            # classname is dotted, tests.integration.test_programs[.Class]: the file is the module
            parts = case.get("classname", "").split(".")
            while parts and not parts[-1].startswith("test_"):
                parts.pop()
            name = "/".join(parts) + ".py" if parts else case.get("classname", "?")
            row = out[name]
            row[0] += float(case.get("time", 0))
            row[1] += 1
            row[2] += any(child.tag in ("failure", "error", "skipped") for child in case)
    return out


def _total(table: Table) -> str:
    seconds = sum(r[0] for r in table.values())
    tests = sum(int(r[1]) for r in table.values())
    bad = sum(int(r[2]) for r in table.values())
    return f"{tests} tests, {bad} not passed, sum of test times {seconds:.0f} s ({seconds / 60:.1f} min)"


def tally(junits: list[Path]) -> str:
    """The closing line of a run made of several pytest runs: `test: N passed, N failed, N skipped`
    (an error, in a fixture or at teardown, counts as a failure; a run that wrote no XML too)."""
    passed = failed = skipped = 0
    for junit in junits:
        if not junit.exists():
            failed += 1
            continue
        for case in ET.parse(junit).getroot().iter("testcase"):
            tags = {child.tag for child in case}
            if tags & {"failure", "error"}:
                failed += 1
            elif "skipped" in tags:
                skipped += 1
            else:
                passed += 1
    return f"test: {passed} passed, {failed} failed, {skipped} skipped"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--tally"]:
        print(tally([Path(p) for p in argv[1:]]))
        return 0
    before: list[Path] = []
    if argv[:1] == ["--before"]:
        if "--" not in argv:
            print("usage: durations.py --before OLD.xml [...] -- NEW.xml [...]", file=sys.stderr)
            return 2
        cut = argv.index("--")
        before, argv = [Path(p) for p in argv[1:cut]], argv[cut + 1 :]
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    after = by_file([Path(p) for p in argv])
    if not before:
        print("| file | tests | s | not passed |\n|---|---:|---:|---:|")
        for f in sorted(after, key=lambda f: -after[f][0]):
            s, n, bad = after[f]
            print(f"| {f} | {n} | {s:.1f} | {bad or ''} |")
        print(f"\n{_total(after)}")
        return 0
    old = by_file(before)
    files = sorted(set(old) | set(after), key=lambda f: -max(old.get(f, [0])[0], after.get(f, [0])[0]))
    print("| file | tests before | s before | tests after | s after |\n|---|---:|---:|---:|---:|")
    for f in files:
        s0, n0, _ = old.get(f, [0.0, 0, 0])
        s1, n1, _ = after.get(f, [0.0, 0, 0])
        print(f"| {f} | {n0} | {s0:.1f} | {n1} | {s1:.1f} |")
    print(f"\nbefore: {_total(old)}\nafter: {_total(after)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
