"""runner.derive.regenerate and `memrun derive`: a small checkout's figure and docs value made
from its data, then a stale figure, a stale value and a figure no command makes found by
--check, which writes nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from runner.derive import stored
from runner.derive.regenerate import DeriveError, regenerate
from tests.support.cli import ROOT
from tests.support.crafted import write_results

PLAN = """pages = ["docs/*.md"]
derived = ["figs/**/*.png"]
[[make]]
run = "memrun plot data --out {out:figs}"
keep = ["loglog-*"]
"""
PAGE = (
    "Go costs <!-- derived: memrun derive value data per_task:peak_rss@1e4 -r go -->?<!-- /derived --> KiB.\n"
)


@pytest.fixture
def checkout(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    stored.stored.cache_clear()
    write_results(tmp_path / "data", "box", {("go", 1): [2.0], ("go", 10_000): [42.96]})
    (tmp_path / "derived.toml").write_text(PLAN)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(PAGE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _memrun(root, *args):  # type: ignore[no-untyped-def]
    env = {"PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "runner", *args], cwd=root, capture_output=True, text=True, env=env
    )


def test_derive_makes_the_files_then_check_finds_each_stale_one_and_writes_nothing(checkout):
    made = regenerate(checkout, workers=2)
    assert sorted(p.name for p in made.written) == ["a.md", "loglog-peak_rss.png", "loglog-peak_rss.svg"]
    assert (checkout / "docs" / "a.md").read_text() == PAGE.replace("-->?<!--", "-->4.00<!--")
    assert not (checkout / "figs" / "bars-n1-peak_rss.png").exists(), "only what keep says"
    assert regenerate(checkout, check=True, workers=2).fresh

    png = checkout / "figs" / "loglog-peak_rss.png"
    stale_png = png.read_bytes()[:-8] + b"\0" * 8
    png.write_bytes(stale_png)
    (checkout / "docs" / "a.md").write_text(PAGE.replace("-->?<!--", "-->3.90<!--"))
    (checkout / "figs" / "old.png").write_bytes(b"drawn by hand")
    p = _memrun(checkout, "derive", "--check")
    assert p.returncode == 1, p.stderr
    lines = p.stderr.splitlines()
    assert "stale: figs/loglog-peak_rss.png: differs" in lines
    assert (
        "stale: docs/a.md: line 1 (`memrun derive value data per_task:peak_rss@1e4 -r go`): differs" in lines
    )
    assert any(line.startswith("not derived: figs/old.png") for line in lines)
    assert lines[-1].startswith("memrun derive --check: 2 of 3 derived files and pages differ")
    assert png.read_bytes() == stale_png, "--check writes nothing"

    (checkout / "figs" / "old.png").unlink()
    assert _memrun(checkout, "derive").returncode == 0
    p = _memrun(checkout, "derive", "--check")
    assert p.returncode == 0 and "all 3 derived files and pages are what the data give" in p.stderr


def test_a_failing_command_or_a_command_that_runs_tasks_is_one_line_naming_it(checkout):
    (checkout / "docs" / "a.md").write_text("<!-- derived: memrun report nowhere -->\nx\n<!-- /derived -->\n")
    with pytest.raises(DeriveError, match=r"^docs/a.md:1: `memrun report nowhere` failed: "):
        regenerate(checkout, check=True, workers=1)
    (checkout / "docs" / "a.md").write_text("<!-- derived: memrun sweep -r go -->x<!-- /derived -->")
    p = _memrun(checkout, "derive", "--check")
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1
    assert "memrun sweep is not a command that only reads stored results" in p.stderr
