"""runner.derive.readers: what derive makes for a command is what the command prints, byte for
byte, and the files it writes are the command's, without running the command line (the command
run here in-process, through its real entry point, to hold them to each other)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.derive.commands import CommandError, output
from tests.support.cli import show
from tests.support.crafted import write_results

REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "reference-10"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    cells = {("go", 1): [2.0, 2.1, 2.0], ("go", 10_000): [42.96, 43.0, 42.9], ("python", 1): [9.0, 9.1, 9.2]}
    return write_results(tmp_path / "data", "box", {**cells, ("python", 10_000): [None]})


@pytest.mark.parametrize(
    "words",
    [
        ["report", "{data}"],
        ["report", "{data}", "--format", "csv"],
        ["report", "{data}", "--section", "sleep"],
        ["report", "{data}", "--format", "html", "--workload", "sleep"],
        ["derive", "value", "{data}", "per_task:peak_rss@1e4", "-r", "go"],
        ["derive", "value", "{data}", "peak_rss@1", "--show", "each"],
        [
            "derive",
            "table",
            "--from",
            "a={data}",
            "--col",
            "at one=a:peak_rss@1",
            "--col",
            "cost=a:per_task:peak_rss@1e4",
        ],
        ["derive", "proofs"],
    ],
)
def test_the_text_is_what_the_command_prints(data, words):
    words = [w.format(data=data) for w in words]
    printed = show(*words)
    assert printed.returncode == 0, printed.stderr
    assert output(words) == printed.stdout


def test_a_report_written_to_a_file_is_the_commands_file(data, tmp_path):
    mine, theirs = tmp_path / "mine.html", tmp_path / "theirs.html"
    assert output(["report", str(data), "--format", "html", "-o", str(mine)]) == f"{mine}\n"
    assert show("report", str(data), "--format", "html", "-o", str(theirs)).returncode == 0
    assert mine.read_bytes() == theirs.read_bytes()


def test_plot_and_inspect_write_the_commands_figures(data, tmp_path):
    (tmp_path / "mine").mkdir()
    printed = output(["plot", str(data), "--out", str(tmp_path / "mine")])
    assert show("plot", str(data), "--out", str(tmp_path / "theirs")).stdout == printed.replace(
        "mine", "theirs"
    )
    drawn = sorted(p.name for p in (tmp_path / "mine").iterdir())
    assert drawn and drawn == sorted(p.name for p in (tmp_path / "theirs").iterdir())
    words = ["inspect", str(REFERENCE), "--run", "4858b5bedc86", "--out"]
    told = output([*words, str(tmp_path / "a")])
    assert told == show(*words, str(tmp_path / "b")).stdout.replace(str(tmp_path / "b"), str(tmp_path / "a"))
    assert {p.name for p in (tmp_path / "a").iterdir()} == {p.name for p in (tmp_path / "b").iterdir()}


def test_a_regression_in_compare_is_refused_as_its_exit_status_is_1(tmp_path):
    base = write_results(tmp_path / "base", "box", {("go", 1): [2.0] * 7, ("go", 10_000): [40.0] * 7})
    other = write_results(tmp_path / "other", "box", {("go", 1): [2.0] * 7, ("go", 10_000): [80.0] * 7})
    assert show("compare", str(base), str(other)).returncode == 1
    with pytest.raises(CommandError, match="exit status 1"):
        output(["compare", str(base), str(other)])
    assert output(["compare", str(other), str(base)]) == show("compare", str(other), str(base)).stdout
