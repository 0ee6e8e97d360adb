"""What `memrun explain` prints: where each byte of a task goes, from the snapshots stored runs took
at their hold (runner.analysis.explain splits them), and the runtimes' own books beside memrun's
parts; and docs/explain.md's summary of the same (`memrun derive explain`). Stored results are
read, never a task program run: the books runs themselves are runner.books'. The command line
parses and prints; `memrun derive` calls the same functions for a page's block."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runner.results.record import RunRecord
    from runner.tasks import Variant

SPLITS_TITLE = "KiB per task, (part(N) - part(1)) / N, medians of each cell's valid runs:"
BOOKS_TITLE = "The runtime's own books, per task, beside memrun's part of the same runs:"


class ExplainError(ValueError):
    """Results that cannot be read, or nothing to split: one line saying why."""


def load_runs(results: Path, log: Callable[[str], None]) -> list[RunRecord]:
    """Every run stored in results, each torn record a warning told through log."""
    from runner.results import ResultsError, TornRecordWarning, load_records

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TornRecordWarning)
        try:
            loaded = [r for _, r in load_records([results])]
        except ResultsError as e:
            raise ExplainError(str(e)) from None
    for w in caught:
        log(f"warning: {w.message}")
    return loaded


def splits_text(
    records: Sequence[RunRecord], variants: Sequence[str], ns: Sequence[int], results: str, required: bool
) -> tuple[str | None, list[str]]:
    """Each (label, variant, N) split into its parts, KiB per task, as a table under its title and
    the stacks' own lines after it (None when no cell has a split), and why cells were left out.
    required: no split is an ExplainError naming results, with those reasons."""
    from runner.analysis.explain import splits
    from runner.show.tables.explain import splits_table, stacks_line

    found, notes = splits(records, variants, ns)
    if not found:
        if required:
            raise ExplainError(
                f"no valid runs with a snapshot at their hold and an N=1 baseline in {results}"
                + (f" ({'; '.join(notes)})" if notes else "")
            )
        return None, notes
    text = f"{SPLITS_TITLE}\n\n{splits_table(found)}"
    lines = [x for s in found if (x := stacks_line(s))]
    if lines:
        text += "\n\n" + "\n".join(f"- {x}" for x in lines)
    return text, notes


def books_text(records: Sequence[RunRecord], chosen: Sequence[Variant] | None, ns: Sequence[int]) -> str:
    """The books runs' figures per task beside memrun's part of the same runs, under their title,
    for the chosen variants' books (every variant's when None) at the --n asked (all when none)."""
    from runner import tasks
    from runner.analysis.explain import books_views
    from runner.show.tables.explain import books_table

    known = {v.name: v for v in chosen} if chosen else tasks.load_all()
    parts = {name: {f.name: f.part for f in v.books.figures} for name, v in known.items() if v.books}
    notes_of = {name: v.books.note for name, v in known.items() if v.books}
    views = [v for v in books_views(records, parts) if not ns or v.n in ns]
    return f"{BOOKS_TITLE}\n\n" + (books_table(views, notes_of) if views else "(no books runs at N and at 1)")


def docs_summary(directory: Path) -> str:
    """docs/explain.md's block, from the runs `memrun explain` stored in directory: what dominates
    a task's memory in each family (at N = 100,000, or the largest N below it a variant reached),
    the split table, and the runtimes' own books beside memrun's figures."""
    from runner import tasks
    from runner.analysis.explain import books_views, splits
    from runner.results import ResultsError, load_records
    from runner.show.figures.split import chosen
    from runner.show.tables.explain import docs_block

    try:
        records = [r for _, r in load_records([directory])]
    except ResultsError as e:
        raise ExplainError(str(e)) from None
    known = tasks.load_all()
    found, _ = splits(records)
    family = {n: v.family for n, v in known.items()}
    shown = sorted(chosen(found), key=lambda s: (family.get(s.variant, ""), s.variant))
    parts = {n: {f.name: f.part for f in v.books.figures} for n, v in known.items() if v.books}
    notes = {n: v.books.note for n, v in known.items() if v.books}
    return docs_block(shown, books_views(records, parts), family, notes)
