"""Reading figures back: the SVGs keep their text as text (svg.fonttype none), so tests read labels
straight from them."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path


def svg_text(path: Path) -> str:
    """All text elements of an SVG, unescaped, one per line."""
    return "\n".join(unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", path.read_text()))
