"""Hostile input: a one-line error naming the problem, exit 2, no traceback, results untouched."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.test_sweep import FIXTURE_TASKS, ROOT, run


def _one_line_error(p, *words):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


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
    _one_line_error(run("sweep", "--n", value, "--out", str(tmp_path / "o"), tmp_path=tmp_path), "--n", words)
    assert not (tmp_path / "o" / "runs.jsonl").exists()


def test_unknown_variant(tmp_path):
    _one_line_error(
        run("sweep", "-r", "cobol", "--out", str(tmp_path / "o"), tmp_path=tmp_path), "unknown variant cobol"
    )


def test_unwritable_out(tmp_path):
    _one_line_error(
        run("sweep", "--n", "1", "--out", "/proc/memrun-out", tmp_path=tmp_path), "/proc/memrun-out"
    )


def test_bad_sleep(tmp_path):
    _one_line_error(
        run("sweep", "--sleep", "soon", "--out", str(tmp_path / "o"), tmp_path=tmp_path), "--sleep"
    )


def test_broken_manifest(tmp_path):
    tasks = tmp_path / "tasks"
    shutil.copytree(FIXTURE_TASKS, tasks)
    manifest = tasks / "fake" / "task.toml"
    manifest.write_text(manifest.read_text().replace('run = ["{python}"', 'run = ["{pythn}"'))
    p = run("doctor", tmp_path=tmp_path, env={"MEMRUN_TASKS": str(tasks)})
    _one_line_error(p, "task.toml", "{pythn}")
    manifest.write_text("[task\n")
    _one_line_error(run("doctor", tmp_path=tmp_path, env={"MEMRUN_TASKS": str(tasks)}), "not valid TOML")


@pytest.mark.parametrize("command", ["report", "plot"])
def test_missing_results(tmp_path, command):
    _one_line_error(run(command, str(tmp_path / "nothing"), tmp_path=tmp_path), "nothing")


@pytest.mark.parametrize("command", ["report", "plot"])
def test_corrupted_results_are_named_and_left_alone(tmp_path, command):
    out = tmp_path / "res"
    assert run("sweep", "--n", "1", "--sleep", "0.2", "--out", str(out), tmp_path=tmp_path).returncode == 0
    runs = out / "runs.jsonl"
    runs.write_text(runs.read_text() + '{"variant": "fake", "n"')  # a run cut short mid-write
    before = runs.read_bytes()
    extra = ["--out", str(tmp_path / "plots")] if command == "plot" else []
    _one_line_error(run(command, str(out), *extra, tmp_path=tmp_path), "runs.jsonl:2", "truncated")
    assert runs.read_bytes() == before


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
    ],
)
def test_option_errors_are_one_line(tmp_path, args, words):
    _one_line_error(run(*args, tmp_path=tmp_path), words)


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["limits"], ["doctor", "go"]])
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
        (["measure", "--timeout", "nan", "--", "true"], "'nan' is not a finite number"),
        (["measure", "--memory-cap", "-1G", "--", "true"], "not a size"),
    ],
)
def test_non_finite_numbers_and_bad_sizes(tmp_path, args, words):
    out = ["--out", str(tmp_path / "o")] if args[0] == "sweep" else []
    _one_line_error(run(*args[:1], *out, *args[1:], tmp_path=tmp_path), words)
    assert not (tmp_path / "o").exists()
