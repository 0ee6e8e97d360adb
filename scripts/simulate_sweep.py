"""What a stored sweep would have taken under the scheduler's rules with each --jobs, on a virtual
clock (runner.scheduling.simulate): its runs' measured phases (spawn, sleep, exit) and peaks, the
sleep `--sleep auto` would now choose before each run from the smaller N, the predictions the
scheduler would have made, and the same rules. Prints one line per --jobs: wall, the runs that
needed a second run, the spawns that overran their prediction into another run's wake.

    .venv/bin/python scripts/simulate_sweep.py plots/data --sweep 20261126T025419-1f83eb --jobs 1,2,4,8
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from runner import tasks
from runner.inputs import SleepSpec
from runner.results import RunRecord
from runner.scheduling import simulate
from runner.scheduling.admit import ENDING, SPAWNING, Plan
from runner.scheduling.alone import alone_because
from runner.scheduling.memory import free_memory
from runner.scheduling.predict import predict
from runner.sweep_lane import chosen_sleep
from runner.workload import get


def _runs(results: Path, sweep_id: str) -> tuple[list[RunRecord], dict]:
    rows = [json.loads(x) for x in (results / "runs.jsonl").read_text().splitlines() if sweep_id in x]
    start = next(
        json.loads(x)
        for x in (results / "sweeps.jsonl").read_text().splitlines()
        if sweep_id in x and '"start"' in x
    )
    return [RunRecord.from_json(r) for r in rows if r.get("sweep_id") == sweep_id], start


def _lanes(records: list[RunRecord], start: dict, sleep: SleepSpec, jobs: int) -> list[list[simulate.Job]]:
    """Per variant, its cells in N order, each planned from the variant's smaller N in this sweep."""
    variants = tasks.load_all()
    order = {name: i for i, name in enumerate(start["variants"])}
    ns = sorted({r.n for r in records})
    lanes = []
    for name in start["variants"]:
        done: list[RunRecord] = []
        lane = []
        for n in ns:
            final = [r for r in records if r.variant == name and r.n == n and not r.superseded]
            if not final or final[0].result is None:
                continue
            r = final[0]
            pred = predict(done, name, n, get(None))
            per_task = variants[name].per_task if name in variants else {}
            limits = start.get("limits") or {}
            alone = alone_because(n, per_task, limits, False, True)
            s = chosen_sleep(sleep, pred, n, per_task, limits) if sleep.auto else sleep.seconds
            res = r.result
            plan = Plan(f"{name}-{n}", name, n, pred.spawn_s, pred.peak, pred.exit_s, s, alone=alone)
            exit_s = (
                max(0.0, res.wall_s - max(r.sleep_s or 0, res.ready_s or 0))
                if res.ready_s is not None
                else 0.0
            )
            wall = max(s, res.ready_s or 0) + exit_s if res.ready_s is not None else res.wall_s
            actual = simulate.Actual(res.ready_s, wall, res.cgroup_peak or res.peak_rss)
            first = (ns.index(n), 0.0 if jobs == 1 else -plan.lasts_s, order[name])  # as Sweeping.order
            lane.append(simulate.Job(first, plan, actual))
            if res.ready_s is not None and res.ready_s > s and not alone:  # a second run: the fallback
                retry = Plan(plan.run_id + "-2", name, n, res.ready_s, plan.peak, exit_s, 2 * res.ready_s + 5)
                lane.append(
                    simulate.Job(
                        (ns.index(n), order[name], 2),
                        retry,
                        simulate.Actual(res.ready_s, 2 * res.ready_s + 5 + exit_s, actual.peak),
                    )
                )
            done.append(r)
        lanes.append(lane)
    return lanes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--jobs", default="1,2,3,4,6,8")
    ap.add_argument("--sleep", default="auto")
    args = ap.parse_args()
    records, start = _runs(args.results, args.sweep)
    budget = free_memory()
    for jobs in map(int, args.jobs.split(",")):
        lanes = _lanes(records, start, SleepSpec.parse(args.sleep), jobs)
        if jobs == 1:
            runs, program = (
                sum(len(lane) for lane in lanes),
                sum(j.actual.wall_s for lane in lanes for j in lane),
            )
            print(
                f"{runs} runs, programs' wall {program:.0f} s, memory free for runs {budget / 2**30:.1f} GiB"
            )
        trace = simulate.run(lanes, jobs, budget)
        clash = 0
        for run_id in trace.start:
            spawn = next((a, b) for p, a, b in trace.of(run_id) if p == SPAWNING)
            for _, phase, a, b in trace.beside(run_id):
                if phase in (ENDING, SPAWNING) and min(b, spawn[1]) > max(a, spawn[0]):
                    clash += 1
        retries = sum(1 for lane in lanes for j in lane if len(j.order) > 3)
        print(
            f"--jobs {jobs}: wall {trace.wall_s:7.0f} s ({trace.wall_s / 60:.1f} min), "
            f"second runs {retries}, spawns beside a spawn or an end {clash}"
        )


if __name__ == "__main__":
    main()
