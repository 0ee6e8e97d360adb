"""What each command that `memrun derive` makes prints, made by the library functions the command
itself calls (runner.cli's showing, inspecting, comparing, deriving and deriving_pages), from its
parsed words (runner.derive.commands): the text it writes on standard output, byte for byte, with
its files written where it writes them. What the command says on stderr (a torn record's warning)
is left out, as derive always left it; what it refuses is a ValueError with its message."""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path
from typing import TYPE_CHECKING

from runner import workload as workloads

if TYPE_CHECKING:
    from runner.results.selected import Selected

# What the functions below import when called: `memrun derive` imports them once before it forks
# the commands (runner.derive.regenerate.warm), so that no forked command imports them again.
USES = (
    "runner.analysis.compare",
    "runner.derive.query",
    "runner.derive.searches",
    "runner.derive.suite_runs",
    "runner.derive.tabulate",
    "runner.results.selected",
    "runner.show.document",
    "runner.show.exports.registry",
    "runner.show.explanation",
    "runner.show.figures.style",
    "runner.show.figures.timeline",
    "runner.show.inspection",
    "runner.show.story",
    "runner.show.tables.compare",
    "runner.show.tables.proofs",
    "runner.tasks.models",
    "runner.workloads.web.comparison",
)


def _quiet(line: str) -> None:
    """A command's stderr line: derive keeps only its standard output."""


def _selected(results: list[str], workload: str) -> Selected:
    """The runs of one workload in the directories named (default results/), as the command loads them."""
    from runner.results.selected import load_selected

    return load_selected([Path(p) for p in (results or ["results"])], workloads.get(workload))


def _write(path: Path, text: str) -> None:
    """A file written as `memrun report -o` writes it; its error said as the command says it."""
    from runner.show.exports.output import write_text

    try:
        write_text(path, text)
    except OSError as e:
        raise ValueError(str(e) if e.strerror is None else f"cannot write {path}: {e.strerror}") from None


def report(a: Namespace) -> str:
    """`memrun report`: the report as text, or (-o) written to its file, whose path is printed.
    A format that makes one document of every workload (the HTML page) does so without
    --workload. The per-label files for other tools (bmf, gab) are never a derived file: refused."""
    from runner.show import document
    from runner.show.exports import registry
    from runner.show.exports.output import check_writable
    from runner.show.exports.per_label import PerLabelExporter
    from runner.tasks.models import variant_models

    if a.output:
        try:
            check_writable(Path(a.output))
        except OSError as e:
            raise ValueError(str(e)) from None
    exporter = registry.get(a.fmt)
    if isinstance(exporter, PerLabelExporter):
        raise ValueError(f"--format {a.fmt}: a file for another tool, never a derived file")
    models = variant_models()
    if exporter.every_workload and a.workload is None:
        from runner.results.selected import load_workloads

        found = load_workloads([Path(p) for p in (a.results or ["results"])])
        selections = [(w, s.runs, s.sweeps, s.capacity) for w, s in found.items()]
        text = exporter.workloads(selections, a.metric, models)
    else:
        s = _selected(a.results, a.workload or workloads.DEFAULT)
        text = document.report(s.runs, s.sweeps, a.fmt, a.metric, s.capacity, models, a.section)
    text = text if exporter.raw else text + "\n"  # a raw text is the whole file (html)
    if not a.output:
        return text
    _write(Path(a.output), text)
    return f"{a.output}\n"


def plot(a: Namespace) -> str:
    """`memrun plot`: every figure of the workload's runs written into --out, each path a line."""
    from runner.show import document

    s = _selected(a.results, a.workload)
    out = Path(a.out_dir)
    try:
        written, _ = document.figures(s.runs, s.sweeps, out, a.metric, s.capacity)
    except OSError as e:
        raise ValueError(f"cannot write figures to {a.out_dir}: {e.strerror}") from None
    written += document.more_figures(s.runs, s.sweeps, out, a.metric, s.capacity)
    return "".join(f"{path}\n" for path in written)


def inspect(a: Namespace) -> str:
    """`memrun inspect`: each chosen run's story, its figure written into --out (runner.show.inspection)."""
    from runner.inputs import parse_n
    from runner.show.inspection import overlap_evidence, stories

    try:
        n = parse_n(a.n_text) if a.n_text is not None else None
    except ValueError as e:
        raise ValueError(f"--n: {e}") from None
    path, variants = Path(a.results), tuple(a.variants)
    if a.overlap:
        return overlap_evidence(path, variants, n, None if a.run_id else a.workload, log=_quiet) + "\n"
    told = stories(path, variants, n, a.run_id, Path(a.out_dir), a.workload, log=_quiet)
    return "".join(f"{text}\n" for text in told)


def compare(a: Namespace) -> str:
    """`memrun compare`: the comparison's table; a regression (its exit status 1) is refused."""
    from runner.analysis.compare import compare_dirs, rule_of
    from runner.show.tables.compare import render

    rule = rule_of(a.metric, a.threshold, a.floor_text)
    result = compare_dirs(
        Path(a.base), Path(a.other), a.metric, rule=rule, workload=workloads.get(a.workload)
    )
    if result.failed(a.strict):
        raise ValueError("a cell is larger in OTHER, or lost its figure (exit status 1)")
    return render(result, a.fmt)


def value(a: Namespace) -> str:
    """`memrun derive value`: one figure for a sentence (runner.derive.query)."""
    from runner.derive.query import value as compute

    chosen = workloads.get(a.workload)
    return compute(a.selection, a.quantity, chosen, a.show, tuple(a.variants), a.against, a.how,
                   a.against_variant) + "\n"  # fmt: skip


def table(a: Namespace) -> str:
    """`memrun derive table`: a Markdown table of figures, one row per variant (runner.derive.tabulate)."""
    from runner.derive.tabulate import named
    from runner.derive.tabulate import table as compute

    chosen = workloads.get(a.workload)
    return compute(named(a.sources), list(a.columns), chosen, tuple(a.variants), a.sort) + "\n"


def checks(a: Namespace) -> str:
    """`memrun derive checks`: every check round of stored capacity answers."""
    from runner.derive.searches import checks as compute

    return compute(a.selection, workloads.get(a.workload))


def searches(a: Namespace) -> str:
    """`memrun derive searches`: every capacity search of stored answers, with its cost."""
    from runner.derive.searches import searches as compute

    return compute(a.selection, workloads.get(a.workload), a.last) + "\n"


def proofs(a: Namespace) -> str:
    """`memrun derive proofs`: every sleep program's `ready` proof, from the manifests."""
    from runner import tasks
    from runner.show.tables.proofs import table as compute

    return compute(tasks.load_all().values()) + "\n"


def explain(a: Namespace) -> str:
    """`memrun derive explain`: docs/explain.md's summary (runner.show.explanation)."""
    from runner.show.explanation import docs_summary

    return docs_summary(a.directory)


def independent(a: Namespace) -> str:
    """`memrun derive independent`: memrun's rate at saturation against vegeta's."""
    from runner.workloads.web.comparison import load
    from runner.workloads.web.comparison import table as compute

    try:
        return compute(load(a.file))
    except OSError as e:
        raise ValueError(str(e)) from None


def suite_runs(a: Namespace) -> str:
    """`memrun derive suite-runs`: the table of the test command's runs, or the README's line."""
    from runner.derive import suite_runs as runs

    try:
        rows = runs.load(a.file)
        return runs.latest_purged(rows) if a.latest_purged else runs.table(rows)
    except (OSError, ValueError) as e:
        raise ValueError(f"{a.file}: {e.strerror if isinstance(e, OSError) else e}") from None
