"""`memrun derive proofs`, `explain`, `independent` and `suite-runs`: the generated blocks of the
docs that are not a table of a sweep's figures (tasks/README.md's `ready` proofs, from the
manifests; docs/explain.md's summary, from `memrun explain`'s runs; docs/http.md's comparison with
vegeta, from scripts/http_independent.py's windows; docs/development.md's table of the test
command's runs, from docs/suite-runs.jsonl). Like every block, they stand between
`<!-- derived: … -->` markers, `memrun derive` writes them and `memrun derive --check` finds them
stale."""

from __future__ import annotations

from pathlib import Path

import click

from runner.cli.app import InputError
from runner.cli.deriving import derive
from runner.cli.refusing import refused


@derive.command("proofs", short_help="The table of every sleep program's `ready` proof, from the manifests.")
def proofs() -> None:
    """One row per distinct proof ([variant.proof] of tasks/*/task.toml), in the manifests' order,
    each version table's own program too: tasks/README.md's table."""
    from runner import tasks
    from runner.show.tables import proofs as table

    click.echo(table.table(tasks.load_all().values()))


@derive.command(
    "explain", short_help="Where each byte of a task goes, per family: docs/explain.md's summary."
)
@click.argument("directory", type=click.Path(path_type=Path))
def explain(directory: Path) -> None:
    """From the runs `memrun explain` stored in DIRECTORY: what dominates a task's memory in each
    family (at N = 100,000, or the largest N below it a variant reached), the split table, and the
    runtimes' own books beside memrun's figures."""
    from runner.show.explanation import ExplainError, docs_summary

    with refused(ExplainError):
        click.echo(docs_summary(directory), nl=False)


@derive.command(
    "independent",
    short_help="memrun's rate at saturation against vegeta's: docs/http.md's table.",
)
@click.argument("file", type=click.Path(path_type=Path))
def independent(file: Path) -> None:
    """From the windows scripts/http_independent.py --out stored in FILE: per variant and setup,
    both generators' answers per second (median, range), their ratio, each client's CPU share and
    the server's CPU per 1,000 answers under each."""
    from runner.workloads.web.comparison import load, table

    try:
        windows = load(file)
    except (OSError, ValueError) as e:
        raise InputError(str(e)) from None
    click.echo(table(windows), nl=False)


@derive.command(
    "suite-runs",
    short_help="The table of the test command's runs: docs/development.md's.",
)
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--latest-purged",
    is_flag=True,
    help="Only the newest quick start and test command on a purged machine, in one line (the README's).",
)
def suite_runs(file: Path, latest_purged: bool) -> None:
    """From the record scripts/test and scripts/quickstart append to (MEMRUN_TEST_RECORD=FILE,
    through scripts/suite_runs.py): one row per run of `bash scripts/test`, oldest first, with the
    quick start run before it in the same clone beside it."""
    from runner.derive import suite_runs as runs

    try:
        rows = runs.load(file)
        click.echo(runs.latest_purged(rows) if latest_purged else runs.table(rows), nl=False)
    except (OSError, ValueError) as e:
        raise InputError(f"{file}: {e.strerror if isinstance(e, OSError) else e}") from None
