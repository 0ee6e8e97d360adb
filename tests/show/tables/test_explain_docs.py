"""docs/explain.md's numbers come from data: its generated block is what plots/explain gives now
(scripts/explain_docs.py rewrites it), and its figure is drawn from the same runs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("explain_docs", ROOT / "scripts" / "explain_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_pages_generated_block_is_what_the_data_gives():
    docs = script()
    page = docs.PAGE.read_text()
    assert docs.page_with(page, docs.block()) == page, "stale: run python scripts/explain_docs.py"


def test_the_block_says_what_dominates_for_every_family_and_the_books_beside():
    block = script().block()
    for family in ("Go", "JVM", "JS", "Rust"):
        assert f"- **{family}**:" in block, family
    for variant in ("go", "java-virtual", "node"):
        assert f"**{variant}**, N=" in block, f"no books of {variant}"
    assert (ROOT / "plots" / "explain" / "split-per-task.png").exists()
