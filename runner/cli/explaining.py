"""`memrun explain`: where each byte of a task goes, from the snapshots runs took at their hold;
with --books, runs that ask the runtime for its own books, shown beside memrun's split."""

from __future__ import annotations

from pathlib import Path

import click

from runner.cli.app import InputError, err, machine, main, refuse_taken_label, select_variants
from runner.cli.options import resolve_memory_cap
from runner.cli.refusing import refused
from runner.cli.sweep_options import LABEL_OPTION, WAIT_OPTION
from runner.inputs import parse_n_list


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
    from runner.show.explanation import ExplainError, books_text, load_runs, splits_text

    with refused(ValueError, prefix="--n: "):
        ns = parse_n_list(n_text) if n_text else []
    if books:
        _run_books(Path(results), list(variants), ns, sleep, label, wait)
    with refused(ExplainError):
        loaded = load_runs(Path(results), log=err)
        text, notes = splits_text(loaded, variants, ns, results, required=not books)
    if text:
        click.echo(text)
    for note in notes:
        err(f"note: {note}")
    if books:
        click.echo("\n" + books_text(loaded, select_variants(list(variants)) if variants else None, ns))


def _run_books(
    out: Path, names: list[str], ns: list[int], sleep: float, label: str | None, wait: bool
) -> None:
    """The books runs (runner.books): each variant with books at N=1 and every N, stored in OUT
    under the label (as a sweep's: refused where OUT holds it from another machine), its program
    built first as a sweep builds it (a books switch lives in the program: a stale build would not
    have it), under the measuring lock."""
    from runner import books, hostinfo, tasks
    from runner.results import ResultsDir

    with refused(books.NoBooks):
        chosen = books.with_books(select_variants(names), log=err)
    store = ResultsDir(out)
    store.check_writable()
    label = label or str(hostinfo.describe()["host"])
    refuse_taken_label(store, label)
    failed = tasks.build_all(chosen, log=err)
    if failed:
        raise InputError("; ".join(f"{name}: build failed: {why}" for name, why in failed.items()))
    cap = resolve_memory_cap("auto", log=err)
    with machine(wait):
        books.measure_all(chosen, ns, sleep, label, store, cap, log=err)
