"""`memrun derive explain`: docs/explain.md's block is made from the runs in plots/explain (the
committed block's freshness is `memrun derive --check`'s, tests/derive/test_committed.py)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from runner.cli import main

ROOT = Path(__file__).resolve().parents[3]


def block() -> str:
    result = CliRunner().invoke(main, ["derive", "explain", str(ROOT / "plots" / "explain")])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_page_holds_the_block_as_a_derived_one():
    page = (ROOT / "docs" / "explain.md").read_text()
    assert "<!-- derived: memrun derive explain plots/explain -->" in page
    assert block().strip() in page


def test_the_block_says_what_dominates_for_every_family_and_the_books_beside():
    text = block()
    for family in ("Go", "JVM", "JS", "Rust"):
        assert f"- **{family}**:" in text, family
    for variant in ("go", "java-virtual", "node"):
        assert f"**{variant}**, N=" in text, f"no books of {variant}"
    assert (ROOT / "plots" / "explain" / "split-per-task.png").exists()


def test_a_directory_without_runs_is_one_line(tmp_path):
    result = CliRunner().invoke(main, ["derive", "explain", str(tmp_path / "none")])
    assert result.exit_code != 0
