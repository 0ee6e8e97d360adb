"""Hostile input: a one-line error naming the problem, exit 2, no traceback, results untouched."""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import FIXTURE_TASKS, ROOT, one_line_error, run


@pytest.mark.parametrize(
    "value, words",
    [
        ("abc", "not a task count"),
        ("-5", "positive"),
        ("0", "at least 1"),
        ("1e99", "allows"),
        ("1.5", "whole number"),
        ("", "empty"),
        ("1,1", "more than once"),
    ],
)
def test_bad_n(tmp_path, value, words):
    one_line_error(run("sweep", "--n", value, "--out", str(tmp_path / "o"), tmp_path=tmp_path), "--n", words)
    assert not (tmp_path / "o" / "runs.jsonl").exists()


def test_unknown_variant(tmp_path):
    one_line_error(
        run("sweep", "-r", "cobol", "--out", str(tmp_path / "o"), tmp_path=tmp_path), "unknown variant cobol"
    )


def test_unwritable_out(tmp_path):
    one_line_error(
        run("sweep", "--n", "1", "--out", "/proc/memrun-out", tmp_path=tmp_path), "/proc/memrun-out"
    )


def test_bad_sleep(tmp_path):
    one_line_error(
        run("sweep", "--sleep", "soon", "--out", str(tmp_path / "o"), tmp_path=tmp_path), "--sleep"
    )


def test_broken_manifest(tmp_path):
    tasks = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, tasks)
    manifest = tasks / "fake" / "task.toml"
    manifest.write_text(manifest.read_text().replace('run = ["{python}"', 'run = ["{pythn}"'))
    p = run("doctor", tmp_path=tmp_path, env={"MEMRUN_TASKS": str(tasks)})
    one_line_error(p, "task.toml", "{pythn}")
    manifest.write_text("[task\n")
    one_line_error(run("doctor", tmp_path=tmp_path, env={"MEMRUN_TASKS": str(tasks)}), "not valid TOML")


@pytest.mark.parametrize("command", ["report", "plot"])
def test_missing_results(tmp_path, command):
    one_line_error(run(command, str(tmp_path / "nothing"), tmp_path=tmp_path), "nothing")


@pytest.mark.parametrize("command", ["report", "plot", "sweep"])
def test_corrupted_results_are_named_and_left_alone(tmp_path, command):
    out = tmp_path / "res"
    args = ("sweep", "--n", "1", "--sleep", "0.2", "--out", str(out))
    assert run(*args, tmp_path=tmp_path).returncode == 0
    runs = out / "runs.jsonl"
    row = runs.read_text()
    # a record cut short in the middle of the file: damage no crash leaves (a crash tears the last line)
    runs.write_text(row + '{"variant": "fake", "n"\n' + row)
    before = {f.name: f.read_bytes() for f in out.iterdir()}
    extra = {"plot": ["--out", str(tmp_path / "plots")], "sweep": ["--resume"]}.get(command, [])
    cmd = args + tuple(extra) if command == "sweep" else (command, str(out), *extra)
    one_line_error(run(*cmd, tmp_path=tmp_path), "runs.jsonl:2", "truncated")
    assert {f.name: f.read_bytes() for f in out.iterdir()} == before


def _sweep_and_tear(tmp_path, ns="1,2,3"):
    """A sweep, then the last line of runs.jsonl cut where a crash mid-append would cut it."""
    out = tmp_path / "res"
    # 1 s, not 0.2: twice (2026-11-27, the parallel group and the guests beside) a 0.2-s run had
    # no figure, and what these tests read is the torn line, not the runs' timing
    args = ("sweep", "--n", ns, "--sleep", "1", "--out", str(out))
    p = run(*args, tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    runs = out / "runs.jsonl"
    whole = runs.read_bytes()
    last = whole.rstrip(b"\n").rfind(b"\n") + 1
    runs.write_bytes(whole[: last + (len(whole) - last) // 2])
    return out, args, whole[:last], whole[last:]


TORN = "torn last record (a crash or full disk mid-write?) left out; memrun sweep --resume moves it aside"


@pytest.mark.parametrize("command", ["report", "plot"])
def test_a_torn_last_record_is_left_out_with_a_one_line_warning(tmp_path, command):
    out, _, _, _ = _sweep_and_tear(tmp_path, "1,2")
    before = (out / "runs.jsonl").read_bytes()
    extra = ["--out", str(tmp_path / "plots")] if command == "plot" else []
    p = run(command, str(out), *extra, tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines() == [f"warning: {out}/runs.jsonl:2: {TORN}"]
    if command == "report":
        assert "| variant | 1 |" in p.stdout and "| fake | **" in p.stdout, (p.stdout, before.decode())
    else:
        assert any(line.endswith(".png") for line in p.stdout.splitlines())
    assert (out / "runs.jsonl").read_bytes() == before  # reading never changes the file


def test_a_torn_sweeps_record_is_a_warning_too(tmp_path):
    out = tmp_path / "res"
    # auto from 1 s: its subject is the warning (see _sweep_and_tear), and the parallel group, at
    # the lowest priority beside a guest, once had a 1-s run's `ready` come too late (2026-11-28)
    swept = run("sweep", "--n", "1", "--sleep", "auto:1", "--out", str(out), tmp_path=tmp_path)
    assert swept.returncode == 0, swept.stderr
    sweeps = out / "sweeps.jsonl"
    sweeps.write_bytes(sweeps.read_bytes()[:-20])  # the sweep's end record, cut
    p = run("report", str(out), tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines() == [f"warning: {out}/sweeps.jsonl:2: {TORN}"]
    assert "| fake | **" in p.stdout, (p.stdout, (out / "runs.jsonl").read_text())


def _side_file(out, name):
    (side,) = out.glob(f"{name}.torn-*")
    assert side.name[len(name) :].startswith(".torn-20")  # .torn-<UTC YYYYmmddTHHMMSSZ>
    return side


def test_resume_moves_a_torn_run_aside_and_runs_its_cell_again(tmp_path):
    out, args, kept, cut = _sweep_and_tear(tmp_path)
    torn = (out / "runs.jsonl").read_bytes()[len(kept) :]
    assert torn and torn == cut[: len(torn)]
    p = run(*args, "--resume", tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    side = _side_file(out, "runs.jsonl")
    assert side.read_bytes() == torn
    moved = f"moved the torn last record of {out}/runs.jsonl (line 3, {len(torn)} bytes) aside to {side}"
    assert moved in p.stderr.splitlines()
    assert "2 cell(s) already" in p.stderr and "warning" not in p.stderr
    text = (out / "runs.jsonl").read_text()
    assert text.startswith(kept.decode()) and text.endswith("\n")
    rows = [json.loads(line) for line in text.splitlines()]
    assert [r["n"] for r in rows] == [1, 2, 3]
    report = run("report", str(out), tmp_path=tmp_path)
    assert report.returncode == 0 and report.stderr == ""


def test_resume_moves_a_torn_timeline_aside(tmp_path):
    """A crash while the timeline is written: the run row never was (it comes second)."""
    out, args, kept, _ = _sweep_and_tear(tmp_path)
    (out / "runs.jsonl").write_bytes(kept)
    timelines = out / "timelines.jsonl"
    whole = timelines.read_bytes()
    torn = whole[whole.rstrip(b"\n").rfind(b"\n") + 1 : -7]
    timelines.write_bytes(whole[: len(whole) - 7])
    p = run(*args, "--resume", tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert _side_file(out, "timelines.jsonl").read_bytes() == torn
    assert f"moved the torn last record of {out}/timelines.jsonl (line 3, " in p.stderr
    assert not list(out.glob("runs.jsonl.torn-*"))
    assert [json.loads(line)["n"] for line in (out / "runs.jsonl").read_text().splitlines()] == [1, 2, 3]
    assert len([json.loads(line) for line in timelines.read_text().splitlines()]) == 3


def test_measure_needs_a_command(tmp_path):
    p = run("measure", tmp_path=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_help_explains_every_command(tmp_path):
    p = run("--help", tmp_path=tmp_path)
    for command in ("measure", "sweep", "report", "plot", "doctor", "build", "limits", "setup"):
        assert command in p.stdout


def test_build_skips_what_is_up_to_date_and_names_a_failed_variant(tmp_path):
    tasks_dir = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, tasks_dir)
    env = {"MEMRUN_TASKS": str(tasks_dir)}
    first = run("build", tmp_path=tmp_path, env=env)
    assert first.returncode == 0 and "built" in first.stderr
    second = run("build", tmp_path=tmp_path, env=env)
    assert second.returncode == 0 and "up to date" in second.stderr
    (tasks_dir / "fake" / "fake.py").write_text("def broken(:\n")
    third = run("build", tmp_path=tmp_path, env=env)
    assert third.returncode == 1
    assert "build of fake failed" in third.stderr and "SyntaxError" in third.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (("sweep", "--repeat", "0"), "--repeat"),
        (("measure", "--timeout", "-3", "--", "true"), "--timeout"),
        (("sweep", "--bogus"), "--bogus"),
        (("nosuch",), "nosuch"),
        (("limits", "--n", "abc"), "--n"),
        (("limits", "--workload", "naps"), "--workload"),
        (("limits", "--workload", "connections", "-r", "cobol"), "unknown variant cobol"),
    ],
)
def test_option_errors_are_one_line(tmp_path, args, words):
    one_line_error(run(*args, tmp_path=tmp_path), words)


@pytest.mark.parametrize(
    "args", [["--help"], ["--version"], ["limits"], ["limits", "--workload", "connections"], ["doctor", "go"]]
)
def test_commands_that_show_no_table_do_not_import_pandas_or_matplotlib(args):
    code = (
        "import sys\nfrom runner.cli import main\n"
        f"try:\n    main({args!r}, standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.stdout.strip().splitlines()[-1] == "[]", p.stdout + p.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (["sweep", "--interval", "nan"], "'nan' is not a finite number"),
        (["sweep", "--timeout", "inf"], "'inf' is not a finite number"),
        (["sweep", "--sleep", "nan"], "--sleep must be between"),
        (["sweep", "--memory-cap", "lots"], "not a size: 'lots'"),
        (["sweep", "--memory-cap", "nan"], "not a size: 'nan'"),
        (["sweep", "--memory-cap", "0"], "at least 1 byte"),
        (["sweep", "--workload", "connections", "--buffer", "lots"], "--buffer: not a size: 'lots'"),
        (["sweep", "--workload", "connections", "--buffer", "128MiB"], "--buffer: must be between 1 byte"),
        (["measure", "--timeout", "nan", "--", "true"], "'nan' is not a finite number"),
        (["measure", "--memory-cap", "-1G", "--", "true"], "not a size"),
    ],
)
def test_non_finite_numbers_and_bad_sizes(tmp_path, args, words):
    out = ["--out", str(tmp_path / "o")] if args[0] == "sweep" else []
    one_line_error(run(*args[:1], *out, *args[1:], tmp_path=tmp_path), words)
    assert not (tmp_path / "o").exists()


def test_a_sweep_without_resume_also_moves_a_torn_tail_aside_before_appending(tmp_path):
    """Else its new rows would land behind the torn line and make it a corrupt middle line."""
    out, args, _, _ = _sweep_and_tear(tmp_path, "1,2")
    p = run(*args, tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert f"moved the torn last record of {out}/runs.jsonl (line 2, " in p.stderr
    rows = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert [r["n"] for r in rows] == [1, 1, 2]
    report = run("report", str(out), tmp_path=tmp_path)
    assert report.returncode == 0 and report.stderr == ""


# ------------------------------------------------------------------ memrun limits --workload connections


def _read_int(name: str) -> int:
    return int(Path("/proc/sys", name).read_text().split()[0])


def _capability(bit: int) -> bool:
    status = Path("/proc/self/status").read_text()
    eff = next(line for line in status.splitlines() if line.startswith("CapEff:"))
    return bool(int(eff.split()[1], 16) >> bit & 1)


def _statuses(text: str) -> dict[str, str]:
    """limit -> status from the table of `memrun limits --workload connections --n N` (fixed columns)."""
    out = {}
    for line in text.split("\n\n")[0].splitlines()[1:]:
        if line.startswith("  ") and not line.startswith("   "):
            out[line[2:34].strip()] = line[34:48].strip()
    return out


def test_limits_for_a_million_connections_names_what_a_million_hits_here(tmp_path):
    """What 1e6 connections hit on this machine, worked out here from /proc and getrlimit alone."""
    p = run("limits", "--workload", "connections", "--n", "1e6", tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    got = _statuses(p.stdout)
    n = 1_000_000
    nr_open, somaxconn = _read_int("fs/nr_open"), _read_int("net/core/somaxconn")
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    # CAP_SYS_RESOURCE (24) lets memrun give a run up to fs.nr_open; without it, its own hard limit
    ceiling = nr_open if _capability(24) else min(hard, nr_open)
    expected = {
        "RLIMIT_NOFILE (server)": "HIT" if n + 256 > ceiling else "ok",
        "RLIMIT_NOFILE (client)": "HIT" if n + 16 > ceiling else "ok",
        "fs.nr_open": "HIT" if n + 256 > nr_open else "ok",
        "net.core.somaxconn": "slows" if somaxconn < 65_535 else "ok",
    }
    assert {k: got[k] for k in expected} == expected, p.stdout
    if _capability(21):  # CAP_SYS_ADMIN: past fs.file-max
        assert got["fs.file-max"] == "not enforced"
    assert set(got) >= {"net.ipv4.tcp_max_syn_backlog", "net.ipv4.ip_local_port_range", "memory"}
    assert ("net.netfilter.nf_conntrack_max" in got) == Path("/proc/sys/net/netfilter").is_dir()
    low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    assert f"N needs {-(-n // (high - low + 1)):,} source address(es) of 127.0.0.0/8" in p.stdout
    assert "The client's pacing" in p.stdout


def test_limits_for_connections_lists_thread_per_connection_variants_apart(tmp_path):
    env = {"MEMRUN_TASKS": str(FIXTURE_TASKS.parent / "fdtasks")}
    p = run("limits", "--workload", "connections", "--n", "1e5", tmp_path=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    threads = p.stdout.split("Thread per connection (their threads count as well):\n")[1]
    assert threads.startswith("  fdtest-threads (1 OS thread(s), 2 mapping(s) per task): up to N ~ ")
    assert "No OS thread per connection (only the limits above): fdtest\n" in p.stdout
    only = run("limits", "--workload", "connections", "-r", "fdtest", "--n", "10", tmp_path=tmp_path, env=env)
    assert "fdtest-threads" not in only.stdout and "At N = 10 connections" in only.stdout
