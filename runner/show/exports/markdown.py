"""`memrun report --format md`, the default: the report as Markdown (runner.show.tables.document's
sections, or one of them), any table's Markdown layout; and that little Markdown as HTML:
paragraphs, lists, pipe tables, **bold**, *italic* and `code`.

The HTML report shows the very table `memrun report` prints, converted, rather than a second table
writer that would drift from the first. Only what report.py and labelled.py emit is understood;
everything is escaped first, so a reason or a label can never inject markup.
"""

from __future__ import annotations

import html
import re

from runner.show.exports.exporter import Request, Table, TableExporter
from runner.show.exports.registry import register

_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_INLINE = (
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![*\w])\*(?=\S)(.+?)(?<=\S)\*(?![*\w])"), r"<em>\1</em>"),
)
GROUP_SEP = " · "  # labelled.py's column headers: "label · N"


def inline(text: str) -> str:
    out = html.escape(text, quote=False)
    for pattern, repl in _INLINE:
        out = pattern.sub(repl, out)
    return out


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(body)]


def _header(cells: list[str]) -> str:
    """One header row, or two when every column after the first is "group · N" (several labels)."""
    first, rest = cells[0], cells[1:]
    if not rest or not all(GROUP_SEP in c for c in rest):
        return "<tr>" + "".join(f'<th scope="col">{inline(c)}</th>' for c in cells) + "</tr>"
    parts = [c.rsplit(GROUP_SEP, 1) for c in rest]
    spans: list[list] = []
    for group, _ in parts:
        if spans and spans[-1][0] == group:
            spans[-1][1] += 1
        else:
            spans.append([group, 1])
    top = f'<th scope="col" rowspan="2">{inline(first)}</th>' + "".join(
        f'<th scope="colgroup" colspan="{n}" class="group">{inline(g)}</th>' for g, n in spans
    )
    sub = "".join(f'<th scope="col">{inline(n)}</th>' for _, n in parts)
    return f"<tr>{top}</tr>\n<tr>{sub}</tr>"


def _table(lines: list[str]) -> str:
    rows = [_cells(line) for line in lines]
    head = _header(rows[0])
    body = rows[2:] if len(rows) > 1 and set("".join(rows[1])) <= set("-: ") else rows[1:]
    trs = [
        f'<tr><th scope="row">{inline(r[0])}</th>' + "".join(f"<td>{inline(c)}</td>" for c in r[1:]) + "</tr>"
        for r in body
    ]
    return (
        '<div class="table"><table>\n<thead>\n'
        + head
        + "\n</thead>\n<tbody>\n"
        + "\n".join(trs)
        + ("\n</tbody>\n</table></div>")
    )


def to_html(markdown: str) -> str:
    """Blocks separated by blank lines: a pipe table, a "- " list, else a paragraph."""
    out = []
    for block in re.split(r"\n\s*\n", markdown.strip()):
        lines = [line for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        if all(line.lstrip().startswith("|") for line in lines):
            out.append(_table(lines))
        elif all(line.startswith("- ") for line in lines):
            out.append("<ul>" + "".join(f"<li>{inline(line[2:])}</li>" for line in lines) + "</ul>")
        else:
            out.append(f"<p>{inline(' '.join(lines))}</p>")
    return "\n".join(out)


@register
class Markdown(TableExporter):
    name = "md"

    def table(self, table: Table) -> str:
        return table.markdown()

    def report(self, request: Request) -> str:
        """The whole Markdown report, or the section `--section` names."""
        from runner.show.document import markdown_report

        return markdown_report(request)
