"""runner.derive.plan: derived.toml read, and a command that would run a task refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.derive.plan import Job, PlanError, load


def test_the_plan_lists_commands_pages_and_the_files_that_must_be_made(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("a")
    (tmp_path / "figs").mkdir()
    (tmp_path / "figs" / "x.png").write_bytes(b"x")
    (tmp_path / "derived.toml").write_text(
        'pages = ["docs/*.md"]\nderived = ["figs/**/*.png"]\n'
        '[[make]]\nrun = "memrun plot data --out {out:figs}"\nkeep = ["bars-*"]\n'
    )
    plan = load(tmp_path)
    assert plan.pages == [Path("docs/a.md")] and plan.derived == [Path("figs/x.png")]
    (job,) = plan.jobs
    assert (
        job.argv() == ["plot", "data", "--out", "{out:figs}"]
        and job.outs() == ["figs"]
        and job.keep == ("bars-*",)
    )


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            '[[make]]\nrun = "memrun sweep --out {out:x}"',
            "memrun sweep is not a command that only reads stored results",
        ),
        ('[[make]]\nrun = "memrun plot data"', "writes nowhere"),
        ('[[make]]\nrun = "python -c 1 {out:x}"', "a command starts with memrun"),
        ("[[make]]\nkeep = []", 'needs run = "memrun'),
    ],
)
def test_a_plan_that_cannot_be_used_is_one_line_naming_the_entry(tmp_path, toml, message):
    (tmp_path / "derived.toml").write_text(toml)
    with pytest.raises(PlanError) as e:
        load(tmp_path)
    assert str(e.value).startswith("derived.toml: [[make]] 1: ") and message in str(e.value)


def test_no_plan_says_where_to_run_from(tmp_path):
    with pytest.raises(PlanError, match=r"no derived.toml in .*: run memrun derive from the checkout.s root"):
        load(tmp_path)
    with pytest.raises(PlanError, match="memrun capacity is not"):
        Job("memrun capacity --memory 1GiB", "here").argv()
