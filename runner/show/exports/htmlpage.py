"""`memrun report --format html`: stored results as one self-contained page to publish.

The page a reader opens first, in the order they need it. Its first screen is the answer: one
sentence on what was measured and where, links to every section, and one figure of every
runtime's memory at the largest N. Then the runtimes, grouped as readers think of them (OS
threads, green threads and actors, async runtimes) and sorted by cost per task; the version axis
with what `memrun bisect` found; one section per workload (sleeping tasks, idle connections, an
HTTP service) with its table and figures; the capacity answers; the cause of every cell without a
figure; the machines; and the method with the exact commands. No network, no JavaScript: figures
are inline SVG. Nothing here computes a figure or a table of its own: the sections are the
Markdown report's (runner.show.tables.document) converted, beside `memrun plot`'s figures, so the
page always agrees with `memrun report` and `memrun plot`.
"""

from __future__ import annotations

from typing import Any

from runner import __version__
from runner.results.groups import groups, pooling_note
from runner.show.exports import htmlparts as parts
from runner.show.exports import markdown
from runner.show.exports.htmlparts import e
from runner.show.tables import document
from runner.show.text import dates, file_word, metric_title
from runner.workload import Workload

STYLE = """
body { font: 15px/1.5 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #222; margin: 0;
  background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 26px; margin: 0 0 6px; } h2 { font-size: 20px; margin: 36px 0 8px;
  border-bottom: 1px solid #ddd; padding-bottom: 4px; } h3 { font-size: 16px; margin: 24px 0 6px; }
.lede { color: #333; margin: 0 0 6px; max-width: 1080px; } nav { margin: 0 0 4px; }
nav a { margin-right: 14px; white-space: nowrap; } #headline { margin: 6px 0 0; }
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
#runtimes td:not(:nth-child(2)) { white-space: nowrap; }
figure[id^="versions-"] svg { max-width: 900px; }
"""


def page(
    runs: Any,
    sweeps: list[dict[str, Any]],
    metric: str = "peak_rss",
    capacity: list[dict[str, Any]] | None = None,
    models: dict[str, str] | None = None,
) -> str:
    """The page of one workload's runs (as runner.show.document.shown gives them)."""
    from runner.results import workloads

    return page_of([document.Shown(workloads.only(runs), runs, sweeps, capacity or [])], metric, models)


def page_of(
    shown: list[document.Shown], metric: str = "peak_rss", models: dict[str, str] | None = None
) -> str:
    """The whole page of the given workloads' runs (document.Shown, the default workload first)."""
    found = document.sections(shown, metric, models)
    by_workload = {p.workload: p for p in shown}
    first = document.opening(shown)
    title = first.workload.page_title(metric_title(metric))
    items = [
        (p.workload, groups(p.runs, p.sweeps))
        for p in sorted(shown, key=lambda p: p.workload != first.workload)
    ]
    notes = [pooling_note(found_groups) for _, found_groups in items]
    note = next((n for n in notes if n), "")
    keys = [s.key for s in found if s.key != "answer"] + ["causes", "machines", "method"]
    titles = {s.key: s.link for s in found} | {
        "causes": "Causes",
        "machines": "Machines",
        "method": "Method",
    }
    nav = "".join(f'<a href="#{e(k)}">{e(titles[k])}</a>' for k in keys)
    answer = next(s for s in found if s.key == "answer")
    lede = answer.markdown + (f" {note[:1].upper()}{note[1:]}" if note else "")
    body = [
        '<header id="answer">',
        f"<h1>{e(title)}</h1>",
        f'<p class="lede">{markdown.inline(lede)} {e(dates(first.runs, first.sweeps))}.</p>',
        f"<nav>{nav}</nav>",
        _headline(first, metric, models),
        "</header>",
    ]
    for s in found:
        if s.key == "answer":
            continue
        body.append(f'<section id="{e(s.key)}"><h2>{e(s.title)}</h2>')
        drawn = _section_figures(s, by_workload, metric)
        if s.key == "versions":  # one figure per runtime says it at a glance; the tables follow
            body += drawn
            drawn = []
        body.append(markdown.to_html(s.markdown))
        body += drawn
        body.append("</section>")
    body += parts.causes(items)
    body += parts.machines(items)
    sources = list(dict.fromkeys(str(x) for p in shown for x in p.runs.get("source", [])))
    body += parts.method(items, metric, sources)
    text = "\n".join(body)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>memrun: {e(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        f"{text}\n<footer><p><small>Written by memrun {e(__version__)}. Self-contained: figures are "
        "inline SVG; no network, fonts or scripts are needed.</small></p></footer>\n"
        "</main>\n</body>\n</html>\n"
    )


def _headline(first: document.Shown, metric: str, models: dict[str, str] | None) -> str:
    """The figure of the first screen: every runtime at the largest N (runner.show.figures.headline)."""
    from runner.show.figures.headline import headline

    drawn = headline(first.runs, first.sweeps, metric, models, first.workload.words.noun)
    if drawn is None:
        return ""
    fig, _ = drawn
    return parts.figure("headline", fig, "")


def _section_figures(
    s: document.Section, by_workload: dict[Workload, document.Shown], metric: str
) -> list[str]:
    """The figures that go with a section: a workload's `memrun plot` figures (per label), the
    version axes', the capacity answers'."""
    if s.key == "versions" and s.workload:
        from runner.show.figures import versions

        mine = by_workload[s.workload]
        return [parts.figure(stem, fig, parts.caption_for(stem, metric)) for stem, fig in versions.figures(
            _swept(mine.runs), mine.sweeps, metric)]  # fmt: skip
    if s.key == "capacity":
        from runner.show.figures.capacity import capacity_figures

        out = []
        for p in by_workload.values():
            if p.capacity:
                out += [parts.figure(stem, fig, parts.caption_for(stem, "peak_rss")) for stem, fig in
                        capacity_figures(p.capacity, p.runs, p.sweeps)]  # fmt: skip
        return out
    if s.workload and s.key == s.workload.name:
        mine = by_workload[s.workload]
        runs = document.installed(mine.runs)
        found = groups(runs, mine.sweeps)
        several = len(found) > 1
        names = sorted({v for g in found for v in g.runs["variant"]})
        out = []
        for g in found:
            if several:
                out.append(f'<h3 id="{e(s.key)}-{e(file_word(g.label))}">{e(g.label)}</h3>')
            out += parts.workload_figures(g, metric, g.label if several else None, names)
        return out
    return []


def _swept(runs: Any) -> Any:
    from runner.results.summary import sweep_runs

    return sweep_runs(runs)
