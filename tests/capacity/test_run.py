"""memrun capacity: real searches on the fake task program of known per-task cost
(it holds N KiB), under real capped cgroups, through the real CLI; and where a search starts."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from runner.campaign import CampaignSettings
from runner.capacity import stall as capacity_stall
from runner.capacity.evidence import fits
from runner.capacity.prior import Prior
from runner.capacity.probes import CapacityOptions, CapacityProgress, Prober
from runner.capacity.run import Smaller, _start, answer
from runner.capacity.search import Found
from runner.judge import diagnose
from runner.judge.diagnose import STALL_S
from runner.measure import cgroups
from runner.measure.result import RunResult
from runner.results import ResultsDir, RunRecord
from runner.results.capacity import CapacityResult
from runner.show.tables.capacity import capacity_markdown
from runner.tasks.manifest import load_all
from tests.support.capacity import within_arithmetic
from tests.support.cli import FIXTURE_TASKS, memrun, rows, run
from tests.support.process import ours, processes_with, require

FAKE = str(FIXTURE_TASKS / "fake" / "fake.py")


def _capacity(tmp_path, *args: str, **kw):  # type: ignore[no-untyped-def]
    return run("capacity", "--out", str(tmp_path / "res"), *args, tmp_path=tmp_path, timeout=600, **kw)


@pytest.fixture(scope="module")
def searched(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    """One first search of 64 MiB (its results and build), for the tests that go on from one:
    each works on a copy of its own (_after_a_search), so none sees another's runs."""
    require(cgroups.detect()[0] is not None, "a memory cgroup controller")
    where = tmp_path_factory.mktemp("searched")
    return where, _capacity(where, "--memory", "64MiB", "--json")


def _after_a_search(
    searched: tuple[Path, subprocess.CompletedProcess], tmp_path: Path
) -> subprocess.CompletedProcess:
    where, p = searched
    for name in ("res", "build"):
        if (where / name).exists():
            shutil.copytree(where / name, tmp_path / name)
    return p


@pytest.mark.serial
@pytest.mark.unbuilt
def test_fake_program_fits_what_the_arithmetic_says(searched, tmp_path):
    """The fake holds N KiB on top of an interpreter: under a cap of B it fits (B - M(1)) / 1 KiB
    tasks, with M(1) the cgroup peak of its own N=1 run under the same cap."""
    p = _after_a_search(searched, tmp_path)
    assert p.returncode == 0, p.stderr
    (result,) = [json.loads(line) for line in p.stdout.splitlines()]
    assert set(result) == {
        "variant", "budget_bytes", "max_n", "first_failing_n", "noisy", "flaky_up_to", "flaky_passed",
        "flaky_failed", "stopped_by", "probes", "cost_s", "floor_s", "passed_at_max", "evidence_runs",
        "stalled", "why",
    }  # fmt: skip
    assert result["budget_bytes"] == 64 << 20 and result["stopped_by"] == "out-of-memory"
    probes = rows(tmp_path / "res")
    assert all(r["kind"] == "capacity-probe" and r["memory_cap"] == 64 << 20 for r in probes)
    assert len(probes) == result["probes"] == result["evidence_runs"] <= 9
    # cost: every probe's wall time; floor: the fitting runs at max N (two, three for a band) and
    # the failing one above
    assert result["cost_s"] == pytest.approx(sum(r["wall_s"] for r in probes), abs=0.01)
    at_max = [r["wall_s"] for r in probes if r["n"] == result["max_n"] and r["verdict"] == "valid"]
    assert len(at_max) == result["passed_at_max"] >= (3 if result["noisy"] else 2)
    # the first run at first_failing_n that failed: at the cap, the fake can pass there once first
    # (the kernel reclaims its interpreter's file pages), and then the search is noisy
    failing = next(
        r["wall_s"] for r in probes if r["n"] == result["first_failing_n"] and r["verdict"] != "valid"
    )
    runs = 3 if result["noisy"] else 2
    assert result["floor_s"] == pytest.approx(runs * sum(at_max) / len(at_max) + failing, abs=0.01)
    assert "× floor" in p.stderr and "cost against the floor: 1 searches" in p.stderr
    base = next(r for r in probes if r["n"] == 1)["cgroup_peak"]
    expected = ((64 << 20) - base) / 1024
    assert abs(result["max_n"] - expected) / expected < within_arithmetic(result), (result, expected)
    assert processes_with(FAKE) == [], "an OOM-killed probe leaves no process"
    assert not [
        cg for cg, _, _ in cgroups.run_cgroups() if (cg.path / "cgroup.procs").exists() and ours(cg.pids())
    ]

    # the answer holds on a re-check (memrun capacity --check): max N fits again, 5 % more does
    # not; the check's runs join the evidence and the answer is stored again, held
    check = _capacity(tmp_path, "--memory", "64MiB", "--check", "--json")
    assert check.returncode == 0, check.stdout + check.stderr
    (held,) = [json.loads(line) for line in check.stdout.splitlines()]
    above = math.ceil(1.05 * result["first_failing_n"])
    assert held["max_n"] == result["max_n"] and held["above_n"] == above
    runs_at_max = 3 if result["noisy"] else 1
    assert (held["runs_at_max"], held["fitted_at_max"]) == (runs_at_max, runs_at_max), held
    assert held["above_failed"] and held["held"] and held["lowered_to"] is None, held
    checks = [r for r in rows(tmp_path / "res") if r["kind"] == "capacity-check"]
    assert [r["n"] for r in checks] == [held["max_n"]] * runs_at_max + [held["above_n"]]
    stored = [json.loads(line) for line in (tmp_path / "res" / "capacity.jsonl").read_text().splitlines()]
    assert stored[-1]["why"] == "held in a check" and stored[-1]["max_n"] == result["max_n"]
    assert stored[-1]["evidence_runs"] == len(probes) + len(checks)
    assert stored[-1]["passed_at_max"] == result["passed_at_max"] + runs_at_max

    shown = run("report", str(tmp_path / "res"), tmp_path=tmp_path)
    assert f"**{result['max_n']:,}**" in shown.stdout and "fits in 64 MiB" in shown.stdout
    assert f"{stored[-1]['passed_at_max']} of {stored[-1]['passed_at_max']} runs fitted there" in shown.stdout

    # a second search at the same budget pools every stored run: they settle the answer, so it
    # runs nothing; --fresh sets them aside and starts from the sweeps' line as a first search does
    again = _capacity(tmp_path, "--memory", "64MiB", "--json")
    assert again.returncode == 0, again.stderr
    (second,) = [json.loads(line) for line in again.stdout.splitlines()]
    assert second["max_n"] == result["max_n"] and second["probes"] == 0, second
    assert second["evidence_runs"] == stored[-1]["evidence_runs"]
    fresh = _capacity(tmp_path, "--memory", "64MiB", "--fresh", "--json")
    assert fresh.returncode == 0, fresh.stderr
    last = json.loads((tmp_path / "res" / "capacity.jsonl").read_text().splitlines()[-1])
    assert "search stored" not in last["prediction"] and last["probes"] == last["evidence_runs"] > 0


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_check_that_fails_lowers_the_stored_answer_and_says_why(searched, tmp_path):
    """After a search, the program needs 2 MiB more (FAKE_EXTRA_KIB): the check's run at max N is
    OOM-killed, so the cell is noisy, and the answer moves to an N fitted three times a 5 % step
    below the first failure, stored as a new row that says which run lowered it."""
    p = _after_a_search(searched, tmp_path)
    assert p.returncode == 0, p.stderr
    (result,) = [json.loads(line) for line in p.stdout.splitlines()]
    check = _capacity(tmp_path, "--memory", "64MiB", "--check", "--json", env={"FAKE_EXTRA_KIB": "2048"})
    assert check.returncode == 1, check.stdout + check.stderr
    (c,) = [json.loads(line) for line in check.stdout.splitlines()]
    assert not c["held"] and c["fitted_at_max"] == 0 and c["lowered_to"] is not None
    assert c["why"] == f"lowered: failed at {result['max_n']:,} in a check"
    stored = json.loads((tmp_path / "res" / "capacity.jsonl").read_text().splitlines()[-1])
    assert stored["why"] == c["why"] and stored["max_n"] == c["lowered_to"] < result["max_n"]
    assert stored["noisy"] and stored["first_failing_n"] <= result["max_n"]
    assert 1.05 * stored["max_n"] <= stored["first_failing_n"] and stored["passed_at_max"] >= 3
    assert "lowered: failed at" in run("report", str(tmp_path / "res"), tmp_path=tmp_path).stdout


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_probe_whose_exit_stalls_after_its_sleep_fits_and_the_answer_names_the_stall(tmp_path, monkeypatch):
    """150 threads that never end: after its sleep the fake's exit stalls. The probe is stopped
    once no thread has ended for STALL_S after the sleep (not left to its timeout), judged
    `exit-stalled` with the --futex-hash remedy, and counts as a fit; the answer built from such
    runs says its exit stalled. STALL_S is 4 s here, not 10: the watch, the judge and the probe's
    timeout (capacity.stall.room) all read it, and the fake's threads hold still however long."""
    require(cgroups.detect()[0] is not None, "a memory cgroup controller")
    monkeypatch.setenv("FAKE_STALL_THREADS", "150")
    stall_s = 4.0
    assert stall_s < STALL_S
    monkeypatch.setattr(diagnose, "STALL_S", stall_s)
    monkeypatch.setattr(capacity_stall, "STALL_S", stall_s)
    prober = _prober(tmp_path)
    record = prober(1000, sleep=1.0)
    assert record.code == "exit-stalled" and record.verdict == "invalid", record.reason
    assert fits(record) and "without ending" in record.reason and "--futex-hash" in (record.remedy or "")
    assert record.result is not None and not record.result.timed_out
    assert 1.0 + stall_s <= record.result.wall_s < 1.0 + stall_s + 5, record.result.wall_s
    assert processes_with(FAKE) == []
    failed = prober(1_000_000, sleep=1.0)  # a GiB of tasks in 256 MiB
    assert not fits(failed)
    found = Found(1000, 1_000_000, passed_at_max=1)
    row = answer(prober.variant, prober.budget, found, [record, failed], [record, failed], {"sweep_id": "t"})
    assert row.stalled == 1 and row.stall == record.reason and row.stall_remedy == record.remedy
    assert "exit stalled after the sleep in 1 of them" in capacity_markdown([row.to_json()])


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_probe_that_runs_out_of_memory_after_its_sleep_does_not_fit(tmp_path, monkeypatch):
    """Its tasks fitted until their sleep was over, then it grew past the cap while they ended:
    OOM-killed, so it did not fit."""
    require(cgroups.detect()[0] is not None, "a memory cgroup controller")
    monkeypatch.setenv("FAKE_GROW_AFTER_KIB", str(300 * 1024))
    record = _prober(tmp_path)(1000, sleep=1.0)
    assert record.result is not None and record.result.ready_n == 1000
    assert record.result.wall_s >= 1.0 and record.result.cgroup_oom_kills
    assert not fits(record) and record.code == "out-of-memory", (record.code, record.reason)


@pytest.mark.serial
@pytest.mark.unbuilt
def test_ctrl_c_keeps_every_probe_and_resume_repeats_none(tmp_path):
    """Stopped inside its search (after the two calibration runs and two probes), the search keeps
    every probe; --resume finishes it counting them, and runs none of them again. One budget: the
    interrupt lands inside the first search, so a second budget would only add a whole search."""
    require(cgroups.detect()[0] is not None, "a memory cgroup controller")
    out = tmp_path / "res"
    p = memrun("capacity", "--memory", "48MiB", "--out", str(out), tmp_path=tmp_path)
    deadline = time.monotonic() + 120
    while len(rows(out)) < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "--resume" in err
    kept = rows(out)
    assert len(kept) >= 4 and processes_with(FAKE) == []
    done = run("capacity", "--memory", "48MiB", "--out", str(out), "--resume", tmp_path=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    after = rows(out)
    assert after[: len(kept)] == kept
    results = [json.loads(line) for line in (out / "capacity.jsonl").read_text().splitlines()]
    assert [r["budget_bytes"] for r in results] == [48 << 20]
    # every stored probe is evidence of its budget's answer, the interrupted search's included
    assert len(after) == sum(r["evidence_runs"] for r in results)
    assert sum(r["probes"] for r in results) == len(after) - len(kept)


@pytest.mark.serial
@pytest.mark.unbuilt
def test_a_probe_with_too_short_a_sleep_is_stopped_and_run_again_longer(tmp_path):
    """The history says the fake spawns in a blink; under the test it takes 2.5 s. The first probe
    (sleep 2 s) is stopped at 2 s without `ready`, not left to its timeout, and run once more with
    a longer sleep: a capacity must not be the sleep's artefact."""
    require(cgroups.detect()[0] is not None, "a memory cgroup controller")
    history = tmp_path / "history"
    swept = run("sweep", "--n", "1,10000", "--sleep", "1", "--out", str(history), tmp_path=tmp_path)
    assert swept.returncode == 0, swept.stderr
    p = _capacity(tmp_path, "--memory", "48MiB", "--from", str(history), env={"FAKE_SPAWN_S": "2.5"})
    assert p.returncode == 0, p.stderr
    probes = rows(tmp_path / "res")
    late = [i for i, r in enumerate(probes) if r["code"] == "spawn-outlasted-sleep"]
    assert late, [(r["n"], r["code"]) for r in probes]
    for i in late:  # each stopped at its 2 s deadline, then run again at once with a longer sleep
        first, again = probes[i], probes[i + 1]
        assert first["sleep_requested"] == "capacity:2" and first["ready_s"] is None
        assert 2 <= first["wall_s"] < 4, first["reason"]
        assert again["n"] == first["n"] and again["sleep_requested"].startswith("capacity-retry:")
        assert again["sleep_s"] >= 4
    # (a retry over the budget is OOM-killed before `ready`; one within it shows the spawn time)
    learnt = next(i for i in late if probes[i + 1]["verdict"] == "valid")
    assert probes[learnt + 1]["ready_s"] > 2.4
    assert not [r for r in probes[learnt + 2 :] if r["code"] == "spawn-outlasted-sleep"], "later ones learnt"
    (result,) = [json.loads(line) for line in (tmp_path / "res" / "capacity.jsonl").read_text().splitlines()]
    assert result["sleep_s"] >= 4 and result["max_n"] > 0


@pytest.mark.parametrize(
    "budgets, words",
    [("lots", "not a size"), ("64MiB,64MiB", "more than once"), ("1TiB", "more than this machine can spare")],
)
def test_bad_budgets_are_one_line(tmp_path, budgets, words):
    p = _capacity(tmp_path, "--memory", budgets)
    assert p.returncode == 2 and words in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not (tmp_path / "res" / "runs.jsonl").exists()


@pytest.mark.parametrize(
    "args, words",
    [
        (("--buffer", "2KiB"), "--buffer is a parameter of --workload connections, not of sleep"),
        (("--workload", "connections", "--buffer", "128MiB"), "--buffer: must be between 1 byte and"),
        (("--workload", "http", "--rate", "1k,1k"), "--rate: a rate is given more than once"),
    ],
)
def test_capacity_takes_the_workloads_parameters_as_a_sweep_does(tmp_path, args, words):
    """Each workload's parameters are options of capacity too, checked before anything runs: one
    line, exit 2, as a sweep's."""
    p = _capacity(tmp_path, "--memory", "64MiB", *args)
    assert p.returncode == 2 and words in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not (tmp_path / "res" / "runs.jsonl").exists()


# _start: where a search starts, and what share of the budget that start is expected to fill
# (what the search's first step down compares a failure's peak with).

MIB = 1 << 20


def _sweep(n: int, cgroup: int) -> RunRecord:
    result = RunResult.from_dict({"wall_s": 1.0, "peak_rss": cgroup, "cgroup_peak": cgroup, "exit_code": 0})
    return RunRecord("fake", n, "valid", code="ok", kind="sweep", result=result)


def _prober(tmp_path) -> Prober:  # type: ignore[no-untyped-def]
    variant = load_all(FIXTURE_TASKS)["fake"]
    # 1 KiB per task on 10 MiB: the sweep's line says 252,928 fit in 256 MiB, 1,038,336 in 1 GiB
    history = [_sweep(1, 10 * MIB + 1024), _sweep(100_000, 10 * MIB + 1024 * 100_000)]
    opts = CapacityOptions(CampaignSettings([variant], ResultsDir(tmp_path)), [256 * MIB], history=history)
    return Prober(variant, 256 * MIB, opts, {}, CapacityProgress())


def test_from_the_sweeps_line_the_start_fills_the_budget(tmp_path):
    prober = _prober(tmp_path)
    start = _start(prober.variant, 1024 * MIB, prober, None)
    assert start.n == (1024 * MIB - 10 * MIB) // 1024 and start.fills == 1.0
    assert start.baseline == 10 * MIB + 1024


def test_scaled_from_a_smaller_budget_the_start_fills_what_its_answer_used(tmp_path):
    """A heap sized from the cap: 60,000 fit in 256 MiB using 150 MiB of it. Scaled to 1 GiB the
    start is 240,000, expected to use the same 59 % of the budget; without that answer's peak
    (a row from before it was stored) the share is not known."""
    prober = _prober(tmp_path)
    start = _start(prober.variant, 1024 * MIB, prober, Smaller(256 * MIB, 60_000, 150 * MIB))
    assert start.n == 240_000 and "scaled" in start.how
    assert start.fills == 150 / 256
    unknown = _start(prober.variant, 1024 * MIB, prober, Smaller(256 * MIB, 60_000))
    assert unknown.n == 240_000 and unknown.fills is None
    # an answer above the sweep's line is not scaled: the line's start fills the budget
    above = _start(prober.variant, 1024 * MIB, prober, Smaller(256 * MIB, 300_000, 250 * MIB))
    assert above.n < 1_200_000 and above.fills == 1.0


def test_a_stored_answer_is_the_start_its_failing_n_the_hint_and_its_noise_kept(tmp_path):
    prober = _prober(tmp_path)
    stored = CapacityResult("fake", 256 * MIB, 200_000, 204_000, finished_at="2026-11-23T17:00:00")
    start = _start(prober.variant, 256 * MIB, prober, None, Prior(stored, False))
    assert (start.n, start.hint, start.noisy) == (200_000, 204_000, False)
    assert "200,000 fit the search stored" in start.how and "204,000 failed" in start.how
    why = "its re-check failed at 200,000 (max N 200,000)"
    noisy = _start(prober.variant, 256 * MIB, prober, None, Prior(stored, True, why))
    assert noisy.noisy and noisy.how.endswith("searched as noisy: " + why)


def test_a_stored_answer_of_os_threads_is_not_cut_to_the_guessed_kernel_cost_per_thread(tmp_path):
    """Without an answer, a thread variant starts no higher than the budget over 36 KiB (a Rust
    thread's kernel memory); C's threads fit 7,433 in 256 MiB (35.3 KiB each), and a stored
    7,433 is where the re-run starts, not 7,281."""
    prober = _prober(tmp_path)
    prober.variant = dataclasses.replace(prober.variant, per_task={"threads": 1})
    assert _start(prober.variant, 256 * MIB, prober, None).n == 256 * MIB // (36 * 1024)
    stored = CapacityResult("fake", 256 * MIB, 7_433, 7_582, finished_at="2026-11-23T17:00:00")
    assert _start(prober.variant, 256 * MIB, prober, None, Prior(stored, False)).n == 7_433


def test_a_stored_answer_at_the_kernel_limits_ceiling_is_the_start(tmp_path, monkeypatch):
    """Python's threads at 1 GiB: 22,203 valid (just past where the mappings stop them, the
    ceiling) and nothing failed. The re-run starts there, not 2 % below the limit, and has no
    failing N to probe next."""
    import runner.capacity.run as capacity_run

    monkeypatch.setattr(capacity_run, "max_n", lambda *args, **kw: (21_759, None))
    prober = _prober(tmp_path)
    prober.variant = dataclasses.replace(prober.variant, per_task={"threads": 1})
    fresh = _start(prober.variant, 1024 * MIB, prober, None)
    ceiling = math.ceil(21_759 / 0.98)
    assert (fresh.n, fresh.ceiling) == (int(0.98 * 21_759), ceiling)
    stored = CapacityResult("fake", 1024 * MIB, ceiling, None, finished_at="2026-11-23T17:00:00")
    start = _start(prober.variant, 1024 * MIB, prober, None, Prior(stored, False))
    assert (start.n, start.hint, start.ceiling) == (ceiling, None, ceiling)
    assert f"{ceiling:,} fit the search stored" in start.how and "failed" not in start.how
    beyond = dataclasses.replace(stored, max_n=30_000)  # the limit was raised further then
    assert _start(prober.variant, 1024 * MIB, prober, None, Prior(beyond, False)).n == ceiling


def test_a_search_counts_only_the_answers_and_runs_of_its_own_label(tmp_path):
    """--label: answers of two labels (two machines, or a guest's kernel) are never one answer;
    --resume skips only its own label's."""
    require(cgroups.detect()[0] is not None, "a memory cgroup controller")
    first = _capacity(tmp_path, "--memory", "48MiB", "--label", "a")
    assert first.returncode == 0, first.stderr
    other = _capacity(tmp_path, "--memory", "48MiB", "--label", "b", "--resume")
    assert other.returncode == 0 and "resume: 0 result(s) already" in other.stderr, other.stderr
    again = _capacity(tmp_path, "--memory", "48MiB", "--label", "a", "--resume")
    assert "resume: 1 result(s) already" in again.stderr and "0 to search" in again.stderr, again.stderr
    results = [json.loads(line) for line in (tmp_path / "res" / "capacity.jsonl").read_text().splitlines()]
    assert [r["label"] for r in results] == ["a", "b"]
    probes = rows(tmp_path / "res")
    for r in results:  # each answer's evidence is its own label's probes only
        mine = [p for p in probes if p["label"] == r["label"]]
        assert r["evidence_runs"] == r["probes"] == len(mine) and {p["run_id"] for p in mine} == set(
            r["probe_ids"]
        )


def test_an_answer_keeps_its_parameters_and_only_a_search_with_the_same_values_takes_it(tmp_path):
    """A stored answer is a search's start and what --resume skips only for the same workload
    parameters: an answer found with --buffer 2KiB is not one for the default buffer, and a row
    written before answers kept their parameters ran with the defaults."""
    from runner.capacity.run import mine
    from runner.workload import get

    conn = get("connections")
    defaults = conn.parse_parameters({})
    bigger = {**defaults, "buffer": 2 * defaults["buffer"]}
    (tmp_path / "res").mkdir()
    out = ResultsDir(tmp_path / "res")
    base = {"variant": "go", "budget_bytes": 256 << 20, "workload": "connections", "label": "a"}
    out.add_capacity({**base, "max_n": 1000, "capacity_id": "old"})  # no params: the defaults
    kept = CapacityResult.from_json({**base, "max_n": 500, "capacity_id": "new", "params": bigger})
    assert kept.params == bigger and kept.to_json()["params"] == bigger
    assert "params" not in CapacityResult.from_json({**base, "max_n": 1}).to_json()  # as rows were
    out.add_capacity(kept.to_json())

    def ids(params: dict) -> list[str]:
        opts = CapacityOptions(
            CampaignSettings([], out, workload=conn, params=params, label="a"), [256 << 20]
        )
        return [r["capacity_id"] for r in mine(opts)]

    assert ids({}) == ["old"]
    assert ids({"buffer": bigger["buffer"]}) == ["new"]
