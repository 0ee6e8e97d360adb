"""The table issue 39 asks for, from three sweeps of the same machine: the new default (`--jobs 8`)
and two strict ones (`--jobs 1`), one run a cell each. Per cell: peak RSS of the new default
against the first strict sweep, and the band the two strict sweeps agree within (5 %, or the
runtime's stored spread where it is wider); the verdicts of both; spawn times (`ready_s`) at
N >= 100k within 10 %. Every row outside is printed with OUTSIDE, to be explained.

    .venv/bin/python scripts/aa_table.py STRICT_A STRICT_B NEW
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from runner.analysis.compare import compare_dirs
from runner.results import RunRecord, load_sweeps
from runner.show.beside import clashes

BAND = 0.05
SPAWN = 0.10
SPAWN_FROM_N = 100_000


def _ratios(base: str, other: str, metric: str) -> dict:
    result = compare_dirs(base, other, metric)
    return {(r.variant, r.n): r for r in result.rows}, result.spreads


def json_lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _wall(path: str) -> str:
    ends = [s for s in load_sweeps([Path(path)]) if s.get("total_wall_s") is not None]
    if not ends:
        return "?"
    e = ends[-1]
    minutes = e["total_wall_s"] / 60
    return f"{minutes:.1f} min (programs {e['programs_wall_s'] / 60:.1f} min, jobs {e.get('jobs', 1)})"


def _ratio(row: object) -> str:
    ratio = getattr(row, "ratio", None)
    return "" if ratio is None else f"{ratio:.3f}"


def _verdict(side: object) -> str:
    return "valid" if getattr(side, "median", None) is not None else str(getattr(side, "status", ""))


def _kind(verdict: str) -> str:
    """The verdict itself (valid, invalid, failed), without its reason: a reason quotes figures
    of its run (threads reached, the memory cap of the moment) that differ between two sweeps
    while the verdict and its cause are the same."""
    return verdict.split(":", 1)[0]


HEAD = ["variant", "N", "peak A", "peak new", "new/A", "A/A band", "verdict A", "verdict new"]
HEAD += ["spawn new/A", "spawn B/A", ""]


def main() -> None:
    a, b, new = sys.argv[1:4]
    aa, spreads = _ratios(a, b, "peak_rss")
    got, _ = _ratios(a, new, "peak_rss")
    spawn_aa, _ = _ratios(a, b, "ready_s")
    spawn, _ = _ratios(a, new, "ready_s")
    print(f"strict A {_wall(a)}; strict B {_wall(b)}; new {_wall(new)}\n")
    print("| " + " | ".join(HEAD) + " |")
    print("|" + "---|" * len(HEAD))
    outside = 0
    for key in sorted(got):
        r, twin = got[key], aa.get(key)
        band = max(BAND, abs(twin.ratio - 1) if twin is not None and twin.ratio else 0.0)
        flags = []
        if r.ratio is not None and abs(r.ratio - 1) > band:
            flags.append("peak")
        if _kind(_verdict(r.base)) != _kind(_verdict(r.other)):
            flags.append("verdict")
        s = spawn.get(key)
        if key[1] >= SPAWN_FROM_N and s is not None and s.ratio is not None and abs(s.ratio - 1) > SPAWN:
            flags.append("spawn")
        outside += bool(flags)
        spread = f" (spreads: {spreads[key[0]]})" if key[0] in spreads else ""
        cells = [key[0], f"{key[1]:,}", r.base.text(), r.other.text(), _ratio(r), f"±{band:.1%}{spread}"]
        cells += [_verdict(r.base), _verdict(r.other), _ratio(s), _ratio(spawn_aa.get(key))]
        cells.append("OUTSIDE: " + ", ".join(flags) if flags else "")
        print("| " + " | ".join(cells) + " |")
    print(f"\n{outside} cell(s) outside: explain each.")
    rows = [RunRecord.from_json(r) for r in json_lines(Path(new) / "runs.jsonl")]
    met = [f"{r.variant} N={r.n:,} ({r.run_id})" for r in rows if clashes(r)]
    beside = sum(1 for r in rows if r.beside)
    print(f"new: {beside} of {len(rows)} runs had a run beside them; {len(met)} met a phase kept apart")
    for line in met:
        print(f"  clash: {line}: memrun inspect {new} --run {line.rsplit('(', 1)[1][:-1]}")


if __name__ == "__main__":
    main()
