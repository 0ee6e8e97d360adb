"""`memrun explain`: where each byte of a task goes, from the snapshots runs took at their hold;
with --books, runs that ask the runtime for its own books, shown beside memrun's split."""

from __future__ import annotations

import warnings
from pathlib import Path

import click

from runner.cli.app import InputError, err, machine, main, refuse_taken_label, select_variants
from runner.cli.options import resolve_memory_cap
from runner.cli.sweep_options import LABEL_OPTION, WAIT_OPTION
from runner.inputs import parse_n_list
from runner.units import format_number


@main.command(short_help="Split each task's memory into stack, heap, runtime and kernel parts.")
@click.argument("results", required=False, default="results", type=click.Path())
@click.option("-r", "--variant", "variants", multiple=True, help="Only this variant (repeatable).")
@click.option(
    "--n", "n_text", default=None, help="Only these N (comma-separated, e.g. 1,1e5); N=1 is the baseline."
)
@click.option(
    "--books",
    is_flag=True,
    help="First run each chosen variant that has [variant.books] in its manifest at N=1 and at each "
    "--n, asking its runtime for its own books at the hold (a run of its own, stored as kind "
    "'books' in RESULTS; never a figure), then show them beside memrun's split of the same runs.",
)
@click.option(
    "--sleep",
    type=float,
    default=3.0,
    show_default=True,
    help="Sleep of the --books runs, seconds (a run whose spawn outlasted it "
    "runs again with the longer sleep --sleep auto would give it).",
)
@LABEL_OPTION
@WAIT_OPTION
def explain(
    results: str,
    variants: tuple[str, ...],
    n_text: str | None,
    books: bool,
    sleep: float,
    label: str | None,
    wait: bool,
) -> None:
    """Where each byte of a task goes, for the valid runs stored in RESULTS (default results/).

    Every run takes one snapshot at its hold (all N tasks waiting, after the peak's marks are
    read): /proc/PID/smaps of its processes, split by kind of mapping, and its cgroup's
    memory.stat. For each variant and N, each part's cost per task is (part(N) - part(1)) / N, in
    KiB: thread stacks (touched), heap and arenas, other anonymous and file-backed memory sum to
    the RSS at the hold, set against the peak RSS; the user pages the cgroup was charged, kernel
    stacks, page tables, slab and other kernel memory sum to the cgroup's usage at the hold, set
    against its peak. What the parts leave is shown as "unattributed", with its share.
    """
    from runner.analysis.explain import books_views, splits
    from runner.results import ResultsError, TornRecordWarning, load_records
    from runner.show.tables.explain import books_table, splits_table, stacks_line

    try:
        ns = parse_n_list(n_text) if n_text else []
    except ValueError as e:
        raise InputError(f"--n: {e}") from None
    if books:
        _run_books(Path(results), list(variants), ns, sleep, label, wait)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TornRecordWarning)
        try:
            loaded = [r for _, r in load_records([Path(results)])]
        except ResultsError as e:
            raise InputError(str(e)) from None
    for w in caught:
        err(f"warning: {w.message}")
    found, notes = splits(loaded, variants, ns)
    if not found and not books:
        raise InputError(
            f"no valid runs with a snapshot at their hold and an N=1 baseline in {results}"
            + (f" ({'; '.join(notes)})" if notes else "")
        )
    if found:
        click.echo("KiB per task, (part(N) - part(1)) / N, medians of each cell's valid runs:\n")
        click.echo(splits_table(found))
        lines = [x for s in found if (x := stacks_line(s))]
        if lines:
            click.echo("\n" + "\n".join(f"- {x}" for x in lines))
    for note in notes:
        err(f"note: {note}")
    if books:
        chosen = select_variants(list(variants)) if variants else None
        known = {v.name: v for v in chosen} if chosen else None
        from runner import tasks

        all_variants = known or tasks.load_all()
        parts = {
            name: {f.name: f.part for f in v.books.figures} for name, v in all_variants.items() if v.books
        }
        notes_of = {name: v.books.note for name, v in all_variants.items() if v.books}
        views = [v for v in books_views(loaded, parts) if not ns or v.n in ns]
        click.echo("\nThe runtime's own books, per task, beside memrun's part of the same runs:\n")
        click.echo(books_table(views, notes_of) if views else "(no books runs at N and at 1)")


def _run_books(
    out: Path, names: list[str], ns: list[int], sleep: float, label: str | None, wait: bool
) -> None:
    """The books runs: each variant with books at N=1 and every N, stored in OUT under the label
    (as a sweep's: refused where OUT holds it from another machine), its program built first as a
    sweep builds it (a books switch lives in the program: a stale build would not have it)."""
    from runner import books, hostinfo, tasks
    from runner.results import ResultsDir

    chosen = select_variants(names)
    with_books = [v for v in chosen if v.books is not None]
    for v in chosen:
        if v.books is None:
            err(f"{v.name}: its manifest has no [variant.books]; skipped")
    if not with_books:
        raise InputError("none of the chosen variants has [variant.books] in its manifest")
    store = ResultsDir(out)
    store.check_writable()
    label = label or str(hostinfo.describe()["host"])
    refuse_taken_label(store, label)
    failed = tasks.build_all(with_books, log=err)
    if failed:
        raise InputError("; ".join(f"{name}: build failed: {why}" for name, why in failed.items()))
    cap = resolve_memory_cap("auto", log=err)
    with machine(wait):
        for v in with_books:
            for n in sorted({1, *ns}):
                err(f"books: {v.name} at N={n:,}, sleep {format_number(sleep)} s …")
                *superseded, record = books.run_long_enough(v, n, sleep, label, memory_cap=cap)
                for old in superseded:
                    err(f"  {old.verdict}: {old.reason}; {old.remedy}")
                    store.add_run(old)
                store.add_run(record)
                found = ", ".join(f"{k} {b / 1024:,.0f} KiB" for k, b in (record.books or {}).items())
                err(f"  {record.verdict}{': ' + record.reason if record.reason else ''}; {found}")
