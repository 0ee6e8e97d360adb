"""The generated blocks of a Markdown page: text between markers that name the memrun command
whose output it is.

    <!-- derived: memrun report plots/data --workload connections -->

    (the command's output, as Markdown)

    <!-- /derived -->

A marker alone on its line opens a block: the output stands between blank lines, so a table in it
is a table. `derived text:` puts the output in a ```text fence (a story printed for a terminal).
A marker inside a line opens an inline value, for a figure in a sentence:
`took <!-- derived: memrun derive value ... -->7.4 to 29.7 times<!-- /derived --> as long`. HTML
comments do not render, so a reader sees the figure and GitHub shows no marker. The command is
split as a shell would (shlex), and must start with `memrun`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

# A marker written inside `code` (as in this docstring, or a page that explains them) is text.
_BLOCK = re.compile(r"(?<!`)<!-- derived( text)?: (.*?) -->(.*?)<!-- /derived -->", re.DOTALL)
_OPEN = re.compile(r"(?<!`)<!-- derived")


class BlockError(ValueError):
    """A marker that cannot be read; the message names the page and line."""


@dataclass(frozen=True)
class Block:
    """One generated block of a page: where it starts, its command, and how its output is set."""

    page: str
    line: int
    command: str  # as written in the marker
    fenced: bool  # `derived text:` -> in a ```text fence
    inline: bool  # inside a line: one line of text, no blank lines around it
    start: int  # offsets of the text between the markers
    end: int

    @property
    def argv(self) -> list[str]:
        """The command's arguments after `memrun`."""
        words = shlex.split(self.command)
        if not words or words[0] != "memrun":
            raise BlockError(
                f"{self.page}:{self.line}: a derived block's command starts with memrun: {self.command}"
            )
        return words[1:]

    def body(self, output: str) -> str:
        """What stands between the markers for this output."""
        text = output.strip("\n")
        if self.inline:
            if "\n" in text:
                raise BlockError(
                    f"{self.page}:{self.line}: an inline value is one line; `{self.command}` gave more"
                )
            return text
        if self.fenced:
            text = f"```text\n{text}\n```"
        return f"\n\n{text}\n\n"


def blocks(text: str, page: str) -> list[Block]:
    """Every generated block of a page's text, in order."""
    out = []
    for m in _BLOCK.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if _OPEN.search(m.group(3)):
            raise BlockError(f"{page}:{line}: a derived block is not closed before the next one opens")
        before = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        inline = bool(before.strip()) or not m.group(3).startswith("\n")
        out.append(Block(page, line, m.group(2).strip(), bool(m.group(1)), inline, m.start(3), m.end(3)))
    opened = [m.start() for m in _OPEN.finditer(text)]
    if len(opened) != len(out):
        closed = {text.rfind("<!-- derived", 0, b.start) for b in out}
        line = text.count("\n", 0, next(o for o in opened if o not in closed)) + 1
        raise BlockError(f"{page}:{line}: a derived marker without its <!-- /derived -->")
    return out


def filled(text: str, found: list[Block], outputs: dict[str, str]) -> str:
    """The page's text with every block's body made from its command's output."""
    parts, last = [], 0
    for b in found:
        parts += [text[last : b.start], b.body(outputs[b.command])]
        last = b.end
    return "".join(parts) + text[last:]
