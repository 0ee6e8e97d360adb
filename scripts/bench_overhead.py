"""Benchmark (not a test): does measuring with memrun slow the measured program down?

Runs one command K times under memrun's measure() and K times under GNU time, alternating, and
reports the medians of the program's wall time and CPU time (user + sys) and their ratios
(memrun / GNU time). Aim: <= 1.03. Machines are noisy: read the ratio of medians, not one run.

  .venv/bin/python scripts/bench_overhead.py [-k 7] [-- CMD ARGS...]
Default command: the rust-tokio task program with 1,000,000 tasks and a 2 s sleep.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner import tasks
from runner.measure import measure


def gnu_time(argv: list[str]) -> tuple[float, float]:
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%e %U %S", *argv], capture_output=True, text=True, check=True
    )
    wall, user, sys_ = map(float, proc.stderr.strip().splitlines()[-1].split())
    return wall, user + sys_


def memrun(argv: list[str]) -> tuple[float, float]:
    r = measure(argv)
    assert r.exit_code == 0, r.outcome()
    return r.wall_s, (r.user_s or 0) + (r.sys_s or 0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-k", type=int, default=7, help="runs per tool (default 7)")
    ap.add_argument("command", nargs="*")
    args = ap.parse_args()
    argv = args.command
    if not argv:
        variant = tasks.load_all()["rust-tokio"]
        tasks.build(variant)
        argv = tasks.run_command(variant, 1_000_000, 2)[0]
    runs: dict[str, list[tuple[float, float]]] = {"memrun": [], "gnu-time": []}
    for _ in range(args.k):
        runs["memrun"].append(memrun(argv))
        runs["gnu-time"].append(gnu_time(argv))
    med = {
        k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()
    }
    print(f"command: {' '.join(argv)}   runs per tool: {args.k}")
    for k, (w, c) in med.items():
        print(f"{k:>9}: median wall {w:.3f} s, median CPU {c:.3f} s")
    print(
        f"ratio memrun/gnu-time: wall {med['memrun'][0] / med['gnu-time'][0]:.3f}, "
        f"CPU {med['memrun'][1] / med['gnu-time'][1]:.3f}"
    )


if __name__ == "__main__":
    main()
