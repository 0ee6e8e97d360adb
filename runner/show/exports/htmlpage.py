"""`memrun report --format html`: stored results as one self-contained page to publish.

What a reader of the 2023 article wants, in one file that needs no network and no JavaScript:
the table with verdicts and their causes, the bar charts per N, the log-log chart and per-task
costs (inline SVG, text kept as text), the machine(s) and toolchain versions, and the method:
what is measured, when a run counts, and the exact commands. Nothing here draws or tabulates on
its own: the figures are plot.figures() rendered to SVG text, the table is `memrun report`'s
Markdown converted, so the page always agrees with `memrun plot` and `memrun report`.
"""

from __future__ import annotations

import contextlib
import html
import re
import shlex
from typing import Any

import pandas as pd

from runner import __version__
from runner.results import workloads
from runner.results.groups import Group, groups, pooling_note
from runner.results.record import METRICS
from runner.show.exports import markdown
from runner.show.figures.charts import figures
from runner.show.figures.style import svg_text
from runner.show.tables import document
from runner.show.text import dates, file_word, machine, machines, metric_title, n_label, num
from runner.units import count, size
from runner.workload import DEFAULT, get

STYLE = """
body { font: 15px/1.5 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #222; margin: 0;
  background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 26px; margin: 0 0 6px; } h2 { font-size: 20px; margin: 36px 0 8px;
  border-bottom: 1px solid #ddd; padding-bottom: 4px; } h3 { font-size: 16px; margin: 24px 0 6px; }
.lede { color: #444; margin-top: 0; } nav a { margin-right: 14px; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; }
pre { background: #f6f6f6; padding: 8px 10px; overflow-x: auto; white-space: pre-wrap; }
.table { overflow-x: auto; } table { border-collapse: collapse; font-size: 12.5px; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 4px 6px; vertical-align: top; text-align: left; }
thead th { background: #f2f2f2; } th.group { text-align: center; } tbody th { white-space: nowrap; }
td strong { white-space: nowrap; } td em { color: #8a3b00; }
figure { margin: 18px 0 28px; } figure svg { width: 100%; height: auto; display: block; }
figcaption { font-size: 13px; color: #555; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 6px 0; }
dt { color: #555; } dd { margin: 0; }
"""


def page(
    runs: pd.DataFrame,
    sweeps: list[dict[str, Any]],
    metric: str = "peak_rss",
    capacity: list[dict[str, Any]] | None = None,
) -> str:
    """The whole page as one string; with capacity results, their table and figures too."""
    found = groups(runs, sweeps)
    several = len(found) > 1
    names = sorted({v for g in found for v in g.runs["variant"]})
    workload = workloads.only(runs) if not runs.empty else DEFAULT
    title = get(workload).page_title(metric_title(metric))
    note = pooling_note(found)
    # The report's sections, as the Markdown report has them; the page shows the table and the
    # capacity answers (the version tables are the Markdown report's alone, as they always were).
    written = {part.key: part for part in document.sections(runs, sweeps, metric, capacity or [])}
    parts = [
        f"<h1>{_e(title)}</h1>",
        f'<p class="lede">{_e(machines(sweeps))} · {_e(dates(runs, sweeps))}'
        + (f". {_e(note[:1].upper() + note[1:])}" if note else "")
        + "</p>",
        '<nav><a href="#table">Table</a><a href="#figures">Figures</a>'
        + ('<a href="#capacity">Capacity</a>' if capacity else "")
        + '<a href="#causes">Causes</a>'
        '<a href="#machines">Machines and versions</a><a href="#method">Method</a></nav>',
        f'<section id="table"><h2>{_e(written["table"].title)}</h2>',
        markdown.to_html(written["table"].markdown),
        "</section>",
        '<section id="figures"><h2>Figures</h2>',
    ]
    for g in found:
        if several:
            parts.append(f'<h3 id="figures-{_e(file_word(g.label))}">{_e(g.label)}</h3>')
        parts += _figures(g, metric, g.label if several else None, names)
    parts.append("</section>")
    if capacity:
        parts += _capacity(written["capacity"], capacity, runs, sweeps)
    parts += _causes(found, several)
    parts += _machines(found, several)
    parts += _method(found, metric, several, workload)
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>memrun: {_e(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        f"{body}\n<footer><p><small>Written by memrun {_e(__version__)}. Self-contained: figures are "
        "inline SVG; no network, fonts or scripts are needed.</small></p></footer>\n"
        "</main>\n</body>\n</html>\n"
    )


def _capacity(
    part: document.Section, results: list[dict[str, Any]], runs: pd.DataFrame, sweeps: list[dict[str, Any]]
) -> list[str]:
    """How many tasks fit in each memory budget: the report's capacity section, then one figure
    per budget."""
    from runner.show.figures.capacity import capacity_figures

    parts = [f'<section id="capacity"><h2>{_e(part.title)}</h2>', markdown.to_html(part.markdown)]
    for stem, fig in capacity_figures(results, runs, sweeps):
        parts.append(_figure(stem, fig, "peak_rss", None))
    parts.append("</section>")
    return parts


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _inline_svg(svg: str) -> str:
    """Matplotlib's SVG file as an element of the page: no XML prolog, no metadata block, and no
    fixed size (its viewBox keeps the aspect ratio while CSS fits the width to the page)."""
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    return re.sub(r'^<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 role="img"', svg, count=1)


def _figures(group: Group, metric: str, label: str | None, names: list[str]) -> list[str]:
    out = []
    drawn = figures(group.runs, group.sweeps, metric, label=label, variants=names)
    with contextlib.closing(drawn):
        out += [_figure(stem, fig, metric, label) for stem, fig in drawn]
    return out


def _figure(stem: str, fig: Any, metric: str, label: str | None) -> str:
    what = _figure_caption(stem, metric)
    return (
        f'<figure id="{_e(stem)}">{_inline_svg(svg_text(fig, salt=stem))}'
        f"<figcaption>{_e(what)}{f' ({_e(label)})' if label else ''}</figcaption></figure>"
    )


def _figure_caption(stem: str, metric: str) -> str:
    if stem.startswith("bars-n"):
        n = int(stem.removeprefix("bars-n").split("-", 1)[0])
        return f"{metric_title(metric)} at N = {n_label(n)}, one bar per variant, smallest first."
    if stem.startswith("loglog-"):
        return f"{metric_title(metric)} against N, both axes logarithmic."
    if stem.startswith("split-per-task"):
        return "Where each byte of a task goes: KiB per task by component at N = 100,000 (or below)."
    if stem.startswith("capacity-"):
        return "How many fit in the budget (log scale), against the naive prediction (tick)."
    return "Memory per task: (M(N) − M(1)) / N in KiB, per variant and N."


def _causes(found: list[Group], several: bool) -> list[str]:
    """Every cell without a figure with its whole reason and remedy (the table shortens them)."""
    rows = []
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
                ([f"<td>{_e(g.label)}</td>"] if several else [])
                + [
                    f"<td>{_e(variant)}</td><td>{_e(n_label(int(n)))}</td><td>{_e(last['verdict'])}</td>",
                    f"<td>{_e(reason if isinstance(reason, str) else '')}</td>",
                    f"<td>{_e(remedy if isinstance(remedy, str) else '')}</td>",
                ]
            )
    head = ("<th>label</th>" if several else "") + "<th>variant</th><th>N</th><th>verdict</th>"
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


def _machines(found: list[Group], several: bool) -> list[str]:
    out = ['<section id="machines"><h2>Machines and versions</h2>']
    for g in found:
        if several:
            out.append(f"<h3>{_e(g.label)}</h3>")
        for s in g.sweeps or [{}]:
            facts = "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in _sweep_facts(s))
            out.append(f"<dl>{facts}</dl>")
        out.append(_versions(g))
    out.append("</section>")
    return out


def _sweep_facts(s: dict[str, Any]) -> list[tuple[str, str]]:
    limits = s.get("limits") if isinstance(s.get("limits"), dict) else {}
    shown = ("pid_max", "threads_max", "max_map_count")
    facts = [
        ("machine", _e(machine(s) or "unknown (no sweeps.jsonl)")),
        ("system", _e(s.get("os") or "")),
        ("cgroup", _e(s.get("cgroup_version") or s.get("cgroup_reason") or "")),
        ("limits", _e(", ".join(f"{k} {count(limits[k])}" for k in shown if k in limits))),
        ("memrun", _e(" ".join(str(s[k]) for k in ("memrun_version", "git_revision") if s.get(k)))),
        ("measured", _e(" – ".join(str(s[k]) for k in ("started_at", "finished_at") if s.get(k)))),
    ]
    if num(s.get("memory_cap")) is not None:
        facts.append(("memory cap", _e(size(int(num(s["memory_cap"]))))))
    return [(k, v) for k, v in facts if v]


def _versions(group: Group) -> str:
    """Toolchain versions as the runs recorded them, one row per row of the table."""
    rows = []
    if "versions" in group.runs:
        for variant, cell in group.runs.groupby("variant", sort=True):
            seen: list[dict] = []
            for v in cell["versions"]:
                if isinstance(v, dict) and v not in seen:
                    seen.append(v)
            text = "<br>".join("; ".join(f"{_e(k)}: {_e(val)}" for k, val in v.items()) for v in seen)
            rows.append(f"<tr><th scope='row'>{_e(variant)}</th><td>{text or 'not recorded'}</td></tr>")
    if not rows:
        return "<p>No toolchain versions recorded.</p>"
    return (
        '<div class="table"><table><thead><tr><th>variant</th><th>toolchain versions</th></tr></thead>'
        "<tbody>" + "".join(rows) + "</tbody></table></div>"
    )


def _method(found: list[Group], metric: str, several: bool, workload: str = DEFAULT) -> list[str]:
    metrics = "".join(
        f"<li><code>{_e(k)}</code>{' (shown here)' if k == metric else ''}: {_e(v)}</li>"
        for k, v in METRICS.items()
    )
    counts = get(workload).validity
    out = [
        '<section id="method"><h2>Method</h2>',
        f"<p>{get(workload).program_html}</p>",
        f"<ul>{metrics}</ul>",
        f"<h3>When a run counts</h3>{markdown.to_html(counts)}",
        "<h3>The exact commands</h3>",
    ]
    for g in found:
        for s in g.sweeps:
            where = f" ({_e(g.label)})" if several else ""
            command = _e(s.get("command", "?"))
            out.append(f"<p>Sweep {_e(s.get('sweep_id', ''))}{where}:</p><pre>{command}</pre>")
        out.append(_programs(g, several))
    sources = list(dict.fromkeys(str(x) for g in found for x in g.runs.get("source", [])))
    again = ["memrun", "report", *(sources or ["RESULTS…"]), "--format", "html", "-o", "report.html"]
    again += ["--metric", metric] if metric != "peak_rss" else []
    out.append(f"<p>This page (it never runs a task):</p><pre>{_e(shlex.join(again))}</pre></section>")
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
    where = f" ({_e(group.label)})" if several else ""
    return f"<p>Program command lines at the largest N{where}:</p><pre>{_e(chr(10).join(lines))}</pre>"
