"""The HTML page's parts that are not the document's Markdown: figures as inline SVG, the causes
of every cell without a figure, the machines and their toolchain versions, and the method with
the exact commands. runner.show.exports.htmlpage puts them in the page's order."""

from __future__ import annotations

import contextlib
import html
import re
import shlex
from typing import Any

from runner.results.groups import Group
from runner.results.record import METRICS
from runner.show.exports import markdown
from runner.show.figures.charts import figures
from runner.show.figures.style import svg_text
from runner.show.text import machine, metric_title, n_label, num
from runner.units import count, size
from runner.workload import Workload


def e(text: Any) -> str:
    """Text as HTML, quotes included (attributes too)."""
    return html.escape(str(text), quote=True)


def inline_svg(svg: str) -> str:
    """Matplotlib's SVG file as an element of the page: no XML prolog, no metadata block, and no
    fixed size (its viewBox keeps the aspect ratio while CSS fits the width to the page)."""
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    return re.sub(r'^<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 role="img"', svg, count=1)


def figure(stem: str, fig: Any, caption: str, label: str | None = None) -> str:
    """One figure as inline SVG, its element ids salted by its stem (unique on the page)."""
    words = f"{e(caption)}{f' ({e(label)})' if label else ''}"
    return (
        f'<figure id="{e(stem)}">{inline_svg(svg_text(fig, salt=stem))}'
        + (f"<figcaption>{words}</figcaption>" if words else "")
        + "</figure>"
    )


def caption_for(stem: str, metric: str) -> str:
    """What a figure of `memrun plot` shows, in a line under it (its file stem says which)."""
    for name in ("connections-", "http-"):
        stem = stem.removeprefix(name)
    if stem.startswith("bars-n"):
        n = int(stem.removeprefix("bars-n").split("-", 1)[0])
        return f"{metric_title(metric)} at N = {n_label(n)}, one bar per variant, smallest first."
    if stem.startswith("loglog-"):
        return f"{metric_title(metric)} against N, both axes logarithmic."
    if stem.startswith("split-per-task"):
        return "Where each byte of a task goes: KiB per task by component at N = 100,000 (or below)."
    if stem.startswith("capacity-"):
        return "How many fit in the budget (log scale), against the naive prediction (tick)."
    if stem.startswith("per-task-"):
        return "Memory per task: (M(N) − M(1)) / N in KiB, per variant and N."
    if stem.startswith("versions-"):
        return (
            "Cost per task against version (above) and M(1) (below); dashed: a release memrun bisect found."
        )
    return ""


def workload_figures(group: Group, metric: str, label: str | None, names: list[str]) -> list[str]:
    """Every figure `memrun plot` draws for one label of one workload's runs."""
    drawn = figures(group.runs, group.sweeps, metric, label=label, variants=names)
    with contextlib.closing(drawn):
        return [figure(stem, fig, caption_for(stem, metric), label) for stem, fig in drawn]


Items = list[tuple[Workload, list[Group]]]  # (workload, its label groups), in the page's order


def _title(workload: Workload) -> str:
    title = workload.words.title
    return title[:1].upper() + title[1:]


def causes(items: Items) -> list[str]:
    """Every cell without a figure with its whole reason and remedy (the tables shorten them)."""
    several_w = len(items) > 1
    several_l = any(len(found) > 1 for _, found in items)
    rows = []
    for workload, found in items:
        for g in found:
            runs = g.runs
            if "superseded" in runs:
                runs = runs[~runs["superseded"].fillna(False).astype(bool)]
            for (variant, n), cell in runs.groupby(["variant", "n"], sort=False):
                if (cell["verdict"] == "valid").any():
                    continue
                last = cell.iloc[-1]
                reason, remedy = last.get("reason"), last.get("remedy")
                rows.append(
                    ([f"<td>{e(_title(workload))}</td>"] if several_w else [])
                    + ([f"<td>{e(g.label)}</td>"] if several_l else [])
                    + [
                        f"<td>{e(variant)}</td><td>{e(n_label(int(n)))}</td><td>{e(last['verdict'])}</td>",
                        f"<td>{e(reason if isinstance(reason, str) else '')}</td>",
                        f"<td>{e(remedy if isinstance(remedy, str) else '')}</td>",
                    ]
                )
    head = ("<th>workload</th>" if several_w else "") + ("<th>label</th>" if several_l else "")
    head += "<th>variant</th><th>N</th><th>verdict</th>"
    out = ['<section id="causes"><h2>Causes</h2>']
    if not rows:
        out.append("<p>Every cell has at least one valid run.</p></section>")
        return out
    out.append(
        "<p>Cells without a valid run, with the whole reason and the remedy memrun stored.</p>"
        f'<div class="table"><table><thead><tr>{head}<th>reason</th><th>remedy</th></tr></thead><tbody>'
    )
    out += ["<tr>" + "".join(r) + "</tr>" for r in rows]
    out.append("</tbody></table></div></section>")
    return out


def machines(items: Items) -> list[str]:
    """Each label's machine as its sweeps recorded it, and the toolchain versions of its runs."""
    by_label: dict[str, list[Group]] = {}
    for _, found in items:
        for g in found:
            by_label.setdefault(g.label, []).append(g)
    out = ['<section id="machines"><h2>Machines and versions</h2>']
    for label, mine in by_label.items():
        if len(by_label) > 1:
            out.append(f"<h3>{e(label)}</h3>")
        seen: set[str] = set()
        for s in [s for g in mine for s in g.sweeps] or [{}]:
            facts = "".join(f"<dt>{e(k)}</dt><dd>{v}</dd>" for k, v in _sweep_facts(s))
            if facts not in seen:  # many sweeps on one machine: its facts once
                seen.add(facts)
                out.append(f"<dl>{facts}</dl>")
        out.append(_versions(mine))
    out.append("</section>")
    return out


def _sweep_facts(s: dict[str, Any]) -> list[tuple[str, str]]:
    limits = s.get("limits") if isinstance(s.get("limits"), dict) else {}
    shown = ("pid_max", "threads_max", "max_map_count")
    facts = [
        ("machine", e(machine(s) or "unknown (no sweeps.jsonl)")),
        ("system", e(s.get("os") or "")),
        ("cgroup", e(s.get("cgroup_version") or s.get("cgroup_reason") or "")),
        ("limits", e(", ".join(f"{k} {count(limits[k])}" for k in shown if k in limits))),
    ]
    if num(s.get("memory_cap")) is not None:
        facts.append(("memory cap", e(size(int(num(s["memory_cap"]))))))
    return [(k, v) for k, v in facts if v]


def _versions(found: list[Group]) -> str:
    """Toolchain versions as the runs recorded them, one row per variant (every workload's)."""
    seen: dict[str, list[dict]] = {}
    for g in found:
        if "versions" not in g.runs:
            continue
        for variant, cell in g.runs.groupby("variant", sort=True):
            mine = seen.setdefault(str(variant), [])
            for v in cell["versions"]:
                if isinstance(v, dict) and v not in mine:
                    mine.append(v)
    rows = []
    for variant, mine in sorted(seen.items()):
        text = "<br>".join("; ".join(f"{e(k)}: {e(val)}" for k, val in v.items()) for v in mine)
        rows.append(f"<tr><th scope='row'>{e(variant)}</th><td>{text or 'not recorded'}</td></tr>")
    if not rows:
        return "<p>No toolchain versions recorded.</p>"
    return (
        '<div class="table"><table><thead><tr><th>variant</th><th>toolchain versions</th></tr></thead>'
        "<tbody>" + "".join(rows) + "</tbody></table></div>"
    )


def method(items: Items, metric: str, sources: list[str]) -> list[str]:
    """What is measured, when a run of each workload counts, and the exact commands."""
    metrics = "".join(
        f"<li><code>{e(k)}</code>{' (shown here)' if k == metric else ''}: {e(v)}</li>"
        for k, v in METRICS.items()
    )
    several = len(items) > 1
    out = ['<section id="method"><h2>Method</h2>']
    for workload, _ in items:
        out.append(f"<p>{workload.program_html}</p>")
    out.append(f"<ul>{metrics}</ul>")
    for workload, _ in items:
        where = f": {e(_title(workload).lower())}" if several else ""
        out.append(f"<h3>When a run counts{where}</h3>{markdown.to_html(workload.validity)}")
    out.append("<h3>The exact commands</h3>")
    for _, found in items:
        labelled = len(found) > 1
        for g in found:
            for s in g.sweeps:
                where = f" ({e(g.label)})" if labelled else ""
                by = " ".join(str(s[k]) for k in ("memrun_version", "git_revision") if s.get(k))
                when = " – ".join(str(s[k]) for k in ("started_at", "finished_at") if s.get(k))
                facts = ", ".join(x for x in (f"memrun {by}" if by else "", when) if x)
                out.append(
                    f"<p>Sweep {e(s.get('sweep_id', ''))}{where}{f' ({e(facts)})' if facts else ''}:</p>"
                    f"<pre>{e(s.get('command', '?'))}</pre>"
                )
            out.append(_programs(g, labelled))
    again = ["memrun", "report", *(sources or ["RESULTS…"]), "--format", "html", "-o", "report.html"]
    again += ["--metric", metric] if metric != "peak_rss" else []
    out.append(f"<p>This page (it never runs a task):</p><pre>{e(shlex.join(again))}</pre></section>")
    return out


def _programs(group: Group, several: bool) -> str:
    """Each variant's program command line at the largest N it ran, as the sweep ran it."""
    if "command" not in group.runs:
        return ""
    runs = group.runs[group.runs["command"].notna()]
    if runs.empty:
        return ""
    lines = []
    for variant, cell in runs.groupby("variant", sort=True):
        top = cell[cell["n"] == cell["n"].max()].iloc[0]
        lines.append(f"{variant}: {top['command']}")
    where = f" ({e(group.label)})" if several else ""
    return f"<p>Program command lines at the largest N{where}:</p><pre>{e(chr(10).join(lines))}</pre>"
