"""Sweeps through the real CLI, with a fake task program that holds a known amount of memory."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from runner.results import load_sweeps
from runner.results.summary import load_runs
from tests.support.cli import FIXTURE_TASKS, memrun, rows, run
from tests.support.process import processes_with


@pytest.mark.serial
@pytest.mark.unbuilt
def test_sweep_stores_a_row_per_run_with_figures(tmp_path):
    out = tmp_path / "res"
    p = run(
        "sweep", "--n", "1k,10_000", "--sleep", "0.5", "--repeat", "2", "--out", str(out), tmp_path=tmp_path
    )
    assert p.returncode == 0, p.stderr
    got = rows(out)
    assert [(r["n"], r["repeat"]) for r in got] == [(1000, 0), (1000, 1), (10000, 0), (10000, 1)]
    assert all(r["verdict"] == "valid" and r["sleep_s"] == 0.5 for r in got)
    big = [r for r in got if r["n"] == 10000]
    small = [r for r in got if r["n"] == 1000]
    # the fake holds N KiB: 9000 KiB more at N=10k than at N=1k
    delta = big[0]["peak_rss"] - small[0]["peak_rss"]
    assert abs(delta - 9000 * 1024) < 0.05 * 9000 * 1024
    meta = load_sweeps([out])
    assert meta[0]["cpus"] and meta[0]["limits"] and meta[0]["versions"]["fake"]
    assert meta[0]["cells_run"] == 4 and meta[0]["programs_wall_s"] > 0
    assert "fake" in p.stderr and "ETA" in p.stdout + p.stderr


@pytest.mark.serial
@pytest.mark.unbuilt
def test_invalid_run_is_kept_with_reason_and_auto_sleep_reruns(tmp_path):
    out = tmp_path / "res"
    env = {"FAKE_SPAWN_S": "1.2"}
    p = run("sweep", "--n", "1", "--sleep", "1", "--out", str(out), tmp_path=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    (row,) = rows(out)
    assert row["verdict"] == "invalid" and row["code"] == "spawn-outlasted-sleep"
    # nothing known of the program in a fresh directory: the sleep as given, then the re-run
    fresh = tmp_path / "fresh"
    p = run("sweep", "--n", "1", "--sleep", "auto:1", "--out", str(fresh), tmp_path=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    first, second = rows(fresh)
    assert first["superseded"] and first["sleep_requested"] == "auto:1"
    assert first["code"] == "spawn-outlasted-sleep" and first["sleep_s"] == 1
    assert second["verdict"] == "valid" and second["sleep_s"] == 5  # 2 x 1.2 s, rounded up to 5 s
    assert load_sweeps([fresh])[-1]["reruns"] == 1
    summary = load_runs([out, fresh])
    assert len(summary) == 3
    # the spawn stored beside it predicts this one: the sleep is chosen before the run, no re-run
    p = run("sweep", "--n", "1", "--sleep", "auto:1", "--out", str(out), tmp_path=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    (chosen,) = rows(out)[1:]
    assert chosen["verdict"] == "valid" and chosen["sleep_s"] == 5 and not chosen["superseded"]
    assert chosen["predicted"]["spawn_s"] == pytest.approx(row["ready_s"], abs=0.01)
    assert load_sweeps([out])[-1]["reruns"] == 0


def test_failed_run_is_a_row_not_a_figure(tmp_path):
    out = tmp_path / "res"
    p = run(
        "sweep", "--n", "1", "--sleep", "0.2", "--out", str(out), tmp_path=tmp_path, env={"FAKE_EXIT": "3"}
    )
    assert p.returncode == 0, p.stderr
    (row,) = rows(out)
    assert row["verdict"] == "failed" and "exit 3" in row["reason"]
    # the sweep ends with the cell, its cause and how to see it; that command tells the story
    assert "1 cell(s) with runs that gave no figure:" in p.stdout
    assert "  fake N=1: 1 of 1 run(s) failed, exit 3" in p.stdout
    assert f"    memrun inspect {out} -r fake --n 1" in p.stdout
    p = run("inspect", str(out), "-r", "fake", "--n", "1", "--out", str(tmp_path / "figs"), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"fake N=1: failed (exit), run {row['run_id']}") and "end: exit 3" in p.stdout
    assert sorted(f.suffix for f in (tmp_path / "figs").iterdir()) == [".png", ".svg"]


@pytest.mark.serial
@pytest.mark.unbuilt
def test_sigint_keeps_finished_rows_and_resume_runs_only_the_rest(tmp_path):
    out = tmp_path / "res"
    args = ("sweep", "--n", "1,2,3,4,5", "--sleep", "1", "--out", str(out))
    p = memrun(*args, tmp_path=tmp_path)
    deadline = time.monotonic() + 60
    while len(rows(out)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.3)  # inside the third run
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert "--resume" in err
    kept = rows(out)
    assert 2 <= len(kept) < 5
    assert processes_with(str(FIXTURE_TASKS / "fake" / "fake.py")) == []
    p = run(*args, "--resume", tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    after = rows(out)
    assert after[: len(kept)] == kept
    assert sorted(r["n"] for r in after) == [1, 2, 3, 4, 5]
    assert f"{len(kept)} cell(s) already" in p.stderr


@pytest.mark.serial
@pytest.mark.unbuilt
@pytest.mark.parametrize("sig", [signal.SIGTERM])
def test_sigterm_also_kills_the_run(tmp_path, sig):
    out = tmp_path / "res"
    fake = str(FIXTURE_TASKS / "fake" / "fake.py")
    p = memrun("sweep", "--n", "1", "--sleep", "30", "--out", str(out), tmp_path=tmp_path)
    deadline = time.monotonic() + 60
    while not processes_with(fake) and time.monotonic() < deadline:  # the run is in flight
        time.sleep(0.1)
    assert processes_with(fake), "the run never started"
    p.send_signal(sig)
    p.communicate(timeout=30)
    assert p.returncode == 130
    assert processes_with(fake) == []


def test_missing_toolchain_is_a_row_not_a_silent_skip(tmp_path):
    import shutil

    tasks_dir = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, tasks_dir)
    ghost = tasks_dir / "ghost"
    ghost.mkdir()
    (ghost / "task.toml").write_text(
        '[task]\ndescription = "needs a compiler nobody has"\ninstall = "apt-get install ghostc"\n'
        '[tools.ghostc]\nfind = ["memrun-no-such-compiler"]\n'
        '[[build]]\ncommands = [["{ghostc}", "main.g"]]\n'
        '[[variant]]\nname = "ghost"\nrun = ["{build}/ghost", "{n}", "{sleep}"]\n'
        'proof = { kind = "counter", how = "a fake" }\nmodel = "async"\n'
    )
    env = {"MEMRUN_TASKS": str(tasks_dir)}
    doctor = run("doctor", "ghost", tmp_path=tmp_path, env=env)
    assert doctor.returncode == 1 and "apt-get install ghostc" in doctor.stdout
    assert run("doctor", "fake", tmp_path=tmp_path, env=env).returncode == 0
    out = tmp_path / "res"
    # auto: beside the serial group at the lowest priority the fake once took 1.6 s to be `ready`
    # at N=1 (2026-11-28); a run past its sleep is run again longer, and the rows say so
    p = run("sweep", "--n", "1", "--sleep", "auto:1", "--out", str(out), tmp_path=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    by_variant = {r["variant"]: r for r in rows(out) if not r.get("superseded")}
    assert by_variant["fake"]["verdict"] == "valid", by_variant["fake"]["reason"]
    assert by_variant["ghost"]["verdict"] == "failed" and by_variant["ghost"]["code"] == "toolchain-missing"
    assert "memrun-no-such-compiler" in by_variant["ghost"]["reason"]


@pytest.mark.serial
@pytest.mark.unbuilt
def test_env_settings_are_stored_per_run_and_compare_names_them(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    common = ("sweep", "--wait", "--n", "1k", "--sleep", "0.2", "--repeat", "3")
    assert run(*common, "--out", str(a), tmp_path=tmp_path).returncode == 0
    p = run(*common, "--env", "FAKE_EXTRA_KIB=8192", "--label", "extra", "--out", str(b), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    got = rows(b)
    assert all(r["env_override"] == {"FAKE_EXTRA_KIB": "8192"} for r in got)
    assert all(r["env_extra"]["FAKE_EXTRA_KIB"] == "8192" and r["label"] == "extra" for r in got)
    assert load_sweeps([b])[0]["env_override"] == {"FAKE_EXTRA_KIB": "8192"}
    assert set(load_sweeps([b])[0]["fingerprint"]) >= {"thp", "page_size", "glibc", "malloc_arena_max"}
    assert all(r["env_override"] == {} for r in rows(a))
    cmp = run("compare", str(a), str(b), tmp_path=tmp_path)
    assert cmp.returncode == 1, cmp.stdout + cmp.stderr  # 8 MiB more is a real regression
    line = next(x for x in cmp.stdout.splitlines() if x.startswith("| fake | 1k |"))
    assert "99 % intervals apart | **larger** | FAKE_EXTRA_KIB unset → 8192 |" in line
    # both settings in one directory are two populations, never one median
    both = run("report", str(a), str(b), tmp_path=tmp_path)
    assert "2 labels" in both.stdout


@pytest.mark.parametrize("bad", ["GOGC", "=1", "1X=2", "A B=1"])
def test_a_bad_env_setting_is_one_line_and_exit_2(tmp_path, bad):
    p = run("sweep", "--n", "1", "--env", bad, "--out", str(tmp_path / "r"), tmp_path=tmp_path)
    assert p.returncode == 2 and "--env: expected NAME=VALUE" in p.stderr and not (tmp_path / "r").exists()


def _with_plain(tmp_path: Path) -> dict[str, str]:
    """The fixture tasks plus `plain`, a variant whose manifest has no connections workload."""
    import shutil

    tasks_dir = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, tasks_dir)
    plain = tasks_dir / "plain"
    plain.mkdir()
    (plain / "task.toml").write_text(
        '[task]\ndescription = "the fake program, sleep only"\ninstall = "nothing"\n'
        '[tools.python]\nfind = ["{python}"]\n[[build]]\ncommands = [["{python}", "-c", "pass"]]\n'
        '[[variant]]\nname = "plain"\n'
        f'run = ["{{python}}", "{FIXTURE_TASKS}/fake/fake.py", "{{n}}", "{{sleep}}"]\n'
        'proof = { kind = "counter", how = "a fake" }\nmodel = "async"\n'
    )
    return {"MEMRUN_TASKS": str(tasks_dir)}


def test_a_workload_no_chosen_variant_has_is_refused_before_anything_runs(tmp_path):
    env = _with_plain(tmp_path)
    out = tmp_path / "res"
    p = run(
        "sweep", "--workload", "connections", "-r", "plain", "--out", str(out), tmp_path=tmp_path, env=env
    )
    assert p.returncode == 2 and "no variant selected has the connections workload" in p.stderr
    assert not out.exists()


def test_a_connections_sweep_skips_variants_without_it_and_resumes_apart_from_sleep(tmp_path):
    env = _with_plain(tmp_path)
    out = tmp_path / "res"
    common = ("sweep", "--wait", "--n", "1,200", "--sleep", "0.5", "--out", str(out))
    sleep = run(*common, tmp_path=tmp_path, env=env, timeout=3600)
    assert sleep.returncode == 0, sleep.stderr
    conn = run(*common, "--workload", "connections", "--resume", tmp_path=tmp_path, env=env, timeout=3600)
    assert conn.returncode == 0, conn.stderr
    assert "skipped, no connections workload in their manifest: plain" in conn.stderr
    assert "0 cell(s) already in" in conn.stderr  # sleep rows are not connections cells
    got = [r for r in rows(out) if r["workload"] == "connections"]
    assert [(r["variant"], r["n"], r["params"], r["verdict"]) for r in got] == [
        ("fake", 1, {"buffer": 1024}, "valid"),
        ("fake", 200, {"buffer": 1024}, "valid"),
    ]
    assert all(r["client"]["summary"]["connected"] == r["n"] for r in got)
    sweeps = [s for s in load_sweeps([out]) if s.get("workload") == "connections"]
    assert sweeps and sweeps[0]["skipped"] == ["plain"] and sweeps[0]["params"] == {"buffer": 1024}
    table = run("report", str(out), "--workload", "connections", tmp_path=tmp_path, env=env)
    assert table.returncode == 0 and "KiB/conn" in table.stdout and "plain" not in table.stdout
    again = run(*common, "--workload", "connections", "--resume", tmp_path=tmp_path, env=env, timeout=3600)
    assert "2 cell(s) already in" in again.stderr, again.stderr
    # a label is a machine (or a guest's kernel): what another label holds is not resumed from
    other = run(
        *common, "--n", "1", "--label", "elsewhere", "--resume", tmp_path=tmp_path, env=env, timeout=3600
    )
    assert "0 cell(s) already in" in other.stderr, other.stderr
    assert [r["n"] for r in rows(out) if r["label"] == "elsewhere"] == [1, 1]  # fake and plain
