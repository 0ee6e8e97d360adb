"""runner.derive.blocks: a page's generated blocks found, filled, and refused when malformed."""

from __future__ import annotations

import pytest

from runner.derive.blocks import BlockError, blocks, filled

PAGE = """# A page

Go took <!-- derived: memrun derive value d ready_s@1e4 -->old<!-- /derived --> to start.

<!-- derived: memrun report d -->

| old | table |

<!-- /derived -->

<!-- derived text: memrun inspect d --run x -->
stale story
<!-- /derived -->

Markers quoted in code are text: `<!-- derived: memrun report d -->`.
"""


def test_blocks_inline_values_and_fenced_text_are_found_and_filled():
    found = blocks(PAGE, "page.md")
    assert [(b.line, b.inline, b.fenced) for b in found] == [
        (3, True, False),
        (5, False, False),
        (11, False, True),
    ]
    assert found[1].argv == ["report", "d"]
    outputs = {
        found[0].command: "1.2 s\n",
        found[1].command: "| a | b |\n|---|---|\n",
        found[2].command: "story\n",
    }
    page = filled(PAGE, found, outputs)
    assert (
        "Go took <!-- derived: memrun derive value d ready_s@1e4 -->1.2 s<!-- /derived --> to start." in page
    )
    assert "<!-- derived: memrun report d -->\n\n| a | b |\n|---|---|\n\n<!-- /derived -->" in page
    assert (
        "<!-- derived text: memrun inspect d --run x -->\n\n```text\nstory\n```\n\n<!-- /derived -->" in page
    )
    assert filled(page, blocks(page, "page.md"), outputs) == page, "filling twice changes nothing"


def test_a_marker_without_its_end_or_command_is_refused_naming_the_line():
    with pytest.raises(BlockError, match=r"^page.md:3: a derived marker without"):
        blocks("a\n\n<!-- derived: memrun report d -->\ntext\n", "page.md")
    with pytest.raises(BlockError, match=r"^page.md:1: a derived block's command starts with memrun"):
        blocks("<!-- derived: rm -rf d -->x<!-- /derived -->", "page.md")[0].argv  # noqa: B018
    (inline,) = blocks("x <!-- derived: memrun report d -->y<!-- /derived -->", "page.md")
    with pytest.raises(BlockError, match="an inline value is one line"):
        inline.body("two\nlines")
