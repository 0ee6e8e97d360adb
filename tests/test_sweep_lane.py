"""Sweeps with runs in flight side by side, through the real CLI and fake programs of known cost:
runs overlap only in the phases the rules allow (read from what each run recorded beside it), a
cell that meets a thread limit runs alone, `--jobs 1` runs one at a time, and a stopped sweep
leaves no process and no cgroup behind."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import time
from pathlib import Path

import pytest

from runner.limits import read_limits
from runner.measure import cgroups
from runner.results import RunRecord, load_sweeps
from runner.show.beside import clashes, own_phases
from tests.support.cli import FIXTURE_TASKS, memrun, rows, run
from tests.support.process import processes_with

FAKE = str(FIXTURE_TASKS / "fake" / "fake.py")
SPAWN = {"FAKE_SPAWN_S": "0.3"}  # each run spawns for 0.3 s: a phase long enough to see


def _tasks(tmp_path: Path) -> dict[str, str]:
    """The fixture tasks plus `twin` (the fake program again) and `threaded` (the same, with one OS
    thread per task in its manifest: past kernel.pid_max a cell of it meets a thread limit)."""
    import shutil

    tasks_dir = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, tasks_dir)
    threaded = "[variant.per_task]\nthreads = 1\n"
    for name, model, extra in (("twin", "async", ""), ("threaded", "os-threads", threaded)):
        folder = tasks_dir / name
        folder.mkdir()
        (folder / "task.toml").write_text(
            f'[task]\ndescription = "the fake program, as {name}"\ninstall = "nothing"\n'
            '[tools.python]\nfind = ["{python}"]\n[[build]]\ncommands = [["{python}", "-c", "pass"]]\n'
            f'[[variant]]\nname = "{name}"\nrun = ["{{python}}", "{FAKE}", "{{n}}", "{{sleep}}"]\n'
            'proof.kind = "self-contained"\nproof.how = "the fake program: ready once it holds N"\n'
            f'model = "{model}"\n'
            f"{extra}"
        )
    return {"MEMRUN_TASKS": str(tasks_dir), **SPAWN}


def _records(out: Path) -> list[RunRecord]:
    return [RunRecord.from_json(r) for r in rows(out)]


def _overlaps(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return min(a[1], b[1]) > max(a[0], b[0])


@pytest.mark.serial
@pytest.mark.unbuilt
def test_runs_overlap_only_while_the_others_hold_and_a_thread_limit_cell_runs_alone(tmp_path):
    pid_max = read_limits().get("pid_max")
    assert isinstance(pid_max, int)
    big = pid_max + 1000  # past kernel.pid_max for a thread per task: predicted to meet it
    env = _tasks(tmp_path)
    out = tmp_path / "res"
    # 5 s, not shorter: a run starts beside one whose hold has been idle for a second and only if
    # its spawn, predicted with the margin and slack (admit.py), ends before that one's wake; with
    # 3 s no run had another beside it (2026-11-27)
    args = ("sweep", "-r", "fake", "-r", "twin", "-r", "threaded", "--n", f"1,{big}", "--sleep", "5")
    p = run(*args, "--jobs", "4", "--out", str(out), tmp_path=tmp_path, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    got = _records(out)
    assert len(got) == 6 and {r.verdict for r in got} == {"valid"}, [(r.variant, r.n, r.reason) for r in got]
    overlapped = 0
    for r in got:
        assert r.beside is not None and r.predicted is not None
        phases = {phase: (a, b) for phase, a, b in own_phases(r)}
        for e in r.beside:
            overlapped += 1
            if _overlaps((e["from_s"], e["to_s"]), phases["spawn"]):
                assert e["phase"] == "hold", (r.variant, r.n, e)  # one spawn at a time, no wake in it
            if _overlaps((e["from_s"], e["to_s"]), phases["end"]):
                assert e["phase"] != "spawn", (r.variant, r.n, e)
        assert clashes(r) == []
    assert overlapped >= 2
    limited = next(r for r in got if r.variant == "threaded" and r.n == big)
    assert limited.beside == []
    assert all(e["run_id"] != limited.run_id for r in got for e in r.beside or [])
    end = load_sweeps([out])[-1]
    assert end["jobs"] == 4 and end["total_wall_s"] < end["programs_wall_s"]
    shown = run(
        "inspect", str(out), "-r", "fake", "--n", "1", "--out", str(tmp_path / "f"), tmp_path=tmp_path
    )
    assert "  beside    " in shown.stdout, shown.stdout


@pytest.mark.serial
@pytest.mark.unbuilt
def test_jobs_1_runs_one_at_a_time_in_the_planned_order(tmp_path):
    env = _tasks(tmp_path)
    out = tmp_path / "res"
    args = ("sweep", "-r", "fake", "-r", "twin", "--n", "1,2000", "--sleep", "1", "--jobs", "1")
    p = run(*args, "--out", str(out), tmp_path=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    got = _records(out)
    assert [(r.variant, r.n) for r in got] == [("fake", 1), ("twin", 1), ("fake", 2000), ("twin", 2000)]
    assert all(r.beside == [] for r in got)
    etas = re.findall(r"ETA (\d+)m(\d+)s", p.stdout)
    assert len(etas) == 4
    # every cell left counts, the one waiting for its start too: each takes its 1 s sleep
    assert all(60 * int(m) + int(s) >= left for (m, s), left in zip(etas[:-1], (3, 2, 1), strict=True)), etas
    end = load_sweeps([out])[-1]
    assert end["jobs"] == 1 and end["total_wall_s"] >= end["programs_wall_s"]


def _run_cgroups_of(pid: int) -> list[Path]:
    return [cg.path for cg, owner, _ in cgroups.run_cgroups() if owner == pid]


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_stopped_sweep_with_runs_in_flight_leaves_nothing_and_resume_runs_the_rest(tmp_path):
    env = _tasks(tmp_path)
    out = tmp_path / "res"
    args = (
        "sweep",
        "-r",
        "fake",
        "-r",
        "twin",
        "-r",
        "threaded",
        "--n",
        "1",
        "--sleep",
        "8",
        "--out",
        str(out),
    )
    p = memrun(*args, "--jobs", "4", tmp_path=tmp_path, env=env)
    deadline = time.monotonic() + 60
    while len(processes_with(FAKE)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    in_flight = processes_with(FAKE)
    assert len(in_flight) >= 2, "two runs were never in flight at once"
    cgroups_before = _run_cgroups_of(p.pid)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "--resume" in err
    assert processes_with(FAKE) == []
    assert _run_cgroups_of(p.pid) == [] and all(not path.exists() for path in cgroups_before)
    assert rows(out) == []  # no run had finished: none is kept half-measured
    ended = json.loads((out / "sweeps.jsonl").read_text().splitlines()[-1])
    assert ended["event"] == "end" and ended["interrupted"] is True and ended["cells_run"] == 0
    again = run(*args, "--jobs", "4", "--resume", tmp_path=tmp_path, env=env)
    assert again.returncode == 0, again.stderr
    assert sorted(r["variant"] for r in rows(out)) == ["fake", "threaded", "twin"]
    assert os.path.exists(out / "runs.jsonl")


def test_auto_sleep_is_chosen_twice_the_predicted_spawn_before_the_run():
    """`--sleep auto` gives a cell a longer sleep before it runs when the sleep is not twice its
    predicted spawn (with the margin); `--sleep 10` as given stays 10 s; a guessed spawn keeps it."""
    from runner.inputs import SleepSpec
    from runner.scheduling.predict import Prediction
    from runner.sweep_lane import chosen_sleep

    limits = read_limits()  # no task of these needs a thread: no limit is met
    auto, given = SleepSpec(10.0, auto=True), SleepSpec(10.0)

    def sleep(spawn_s: float, spec: SleepSpec = auto, guessed: tuple[str, ...] = ()) -> float:
        return chosen_sleep(spec, Prediction(spawn_s, 1 << 20, 0.1, "", guessed), 1_000_000, {}, limits)

    assert sleep(3.0) == 10.0  # 1.5 x 3 = 4.5 s: twice that fits in 10 s
    assert sleep(3.8) == 15.0  # erlang's 1M prediction in a quick start: 5.7 s, twice is 11.4 s
    assert sleep(8.5) == 30.0
    assert sleep(8.5, given) == 10.0
    assert sleep(8.5, guessed=("spawn",)) == 10.0


def _ran(variant: str, n: int, ready: float, peak: int, wall: float = 0.0) -> RunRecord:
    from tests.support.runs import result

    res = result(ready_n=n, ready_s=ready, wall_s=wall or 10.0 + ready, peak_rss=peak, cgroup_peak=peak)
    return RunRecord(variant, n, "valid", sleep_s=10.0, result=res, workload="sleep", label="here")


def _sweeping(tmp_path: Path, known: list[RunRecord]):  # type: ignore[no-untyped-def]
    """The state a sweep's lanes share, of the `threaded` fixture variant, with `known` stored."""
    from runner.campaign import CampaignSettings
    from runner.inputs import SleepSpec
    from runner.results.store import ResultsDir
    from runner.sweep import Progress, SweepOptions
    from runner.sweep_lane import Sweeping
    from runner.tasks.manifest import load_all
    from runner.tasks.toolchain import Readiness
    from runner.units import GIB

    threaded = load_all(Path(_tasks(tmp_path)["MEMRUN_TASKS"]))["threaded"]
    ns = [1, 10_000, 100_000, 1_000_000]
    campaign = CampaignSettings([threaded], ResultsDir(tmp_path / "res"), jobs=8, label="here")
    opts = SweepOptions(campaign, ns, SleepSpec(10.0, True), 1, memory_cap=20 * GIB)
    readiness = {"threaded": Readiness(threaded, {}, None, [])}
    return Sweeping(opts, "s", readiness, {"threaded": {}}, Progress(), known, read_limits(), 2, ns), threaded


def test_the_eta_prices_a_cell_as_its_lane_will_run_it(tmp_path):
    """A cell that will not run (it does not fit the memory cap) takes no time in the ETA, and one
    that meets a thread limit here is priced at its sleep, where the lane stops it, not at the
    spawn extrapolated from 10k (2 s there: 20 s at 100k, 200 s at 1M). Priced that way, the
    thread variants' cells made the quick start's ETA five times too long until they had failed."""
    from runner.scheduling.scheduler import Scheduler
    from runner.sweep import Cell
    from runner.units import MIB

    # 40 KiB a thread (1M: 38 GiB), 2 s to spawn 10k, and each ended 0.1 s after its sleep
    known = [_ran("threaded", 1, 0.01, 2 * MIB, 10.1), _ran("threaded", 10_000, 2.0, 400 * MIB, 10.1)]
    ctx, threaded = _sweeping(tmp_path, known)
    assert read_limits().get("pid_max", 0) < 100_000, "100k threads must meet kernel.pid_max here"
    at_100k, at_1m = Cell(threaded, 100_000, 1), Cell(threaded, 1_000_000, 1)
    job = ctx._job(0, at_100k, known, ctx.exits())
    assert job.plan.spawn_s == 10.0 and not job.plan.instant, job.plan  # stopped at its sleep
    assert ctx._job(1, at_1m, known, ctx.exits()).plan.instant  # does not fit: its row is written
    ctx.scheduler, ctx.pending = Scheduler(8), {"threaded": [(0, at_100k), (1, at_1m)]}
    eta = ctx.eta()
    assert eta is not None and 10.0 <= eta < 30.0, eta


def test_the_eta_ends_a_variant_not_run_yet_as_the_others_at_its_n_ended(tmp_path):
    """A workload whose own phases follow the sleep (http: 82 s of load after a 10 s sleep) ends
    each run that much later; a variant with no run yet is priced as the others at its N ended,
    not at the bound of a task's exit (1 s at N = 100), and a variant with runs keeps its own."""
    from runner.scheduling.admit import Plan
    from runner.scheduling.simulate import priced

    ctx, _ = _sweeping(tmp_path, [_ran("other", 100, 0.2, 1 << 20, wall=92.0)])
    fresh = Plan("r", "threaded", 100, 0.5, 1 << 20, 1.0, 10.0)
    assert priced(fresh, ctx.exits()).exit_s == 82.0
    assert priced(dataclasses.replace(fresh, n=1000), ctx.exits()).exit_s == 1.0  # none at its N: the bound
    ctx.known.append(_ran("threaded", 1, 0.01, 1 << 20))
    assert priced(fresh, ctx.exits()).exit_s == 1.0  # its own runs say how it ends


class _Lane:
    """A scheduler's lane that runs each body at once, with its one watcher."""

    def __init__(self) -> None:
        from runner.measure import Watcher

        self.watchers = [Watcher()]

    def run(self, order, plan, body):  # type: ignore[no-untyped-def]
        from runner.scheduling.scheduler import Ran

        return Ran(body(self.watchers))


def test_the_spec_a_cell_is_run_with_is_the_one_its_lane_built(tmp_path, monkeypatch):
    """From the lane to the Run, one typed spec, handed on as it is: what the sweep's options and
    the scheduler said (the timeout, the interval, the cap, the lane's watchers) is what the Run
    was given, and what every run of the campaign shares (its parameters) is in its settings."""
    from runner import sweep_lane
    from runner.sweep import Cell
    from tests.support.handoff import record

    ctx, threaded = _sweeping(tmp_path, [])
    ctx.campaign.out.check_writable()  # made, as run_sweep makes it
    seen = record(monkeypatch, sweep_lane)
    lane = _Lane()
    records = sweep_lane.run_cell(ctx, lane, 0, Cell(threaded, 1, 0))  # type: ignore[arg-type]
    assert len(records) == len(seen.built) == len(seen.runs) >= 1
    for settings, ran in zip(seen.built, seen.runs, strict=True):
        assert ran.spec is settings.spec
        spec, opts = settings.spec, ctx.opts
        assert spec.watchers is lane.watchers and spec.on_sample is not None
        assert (spec.timeout, spec.interval, spec.memory_cap) == (None, 0.05, opts.memory_cap)
        assert settings.params == opts.campaign.params and settings.futex_hash is None
        assert ran.command.argv[-2] == "1"
