"""The memrun commands that derived.toml and the pages' blocks name, made by the library functions
those commands call, not by the command line: what `memrun derive` runs for each.

A plan or a block names a command as a user types it (`memrun report plots/data --section
capacity`), so that a reader can run it and see the same. Here its words are parsed as that
command parses them (the same options and defaults: tests/derive/test_commands.py holds both to
one list) and the library gives what the command prints: the same text, byte for byte, and the
same files written where it writes them. Only commands that read stored results are here
(runner.derive.plan.READERS); anything they cannot do is a CommandError of one line.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from runner import workload as workloads
from runner.derive import readers

Made = Callable[[argparse.Namespace], str]


class CommandError(ValueError):
    """A command that cannot be made as written (its words, or its data): one line saying why."""


class _Parser(argparse.ArgumentParser):
    """A command's words parsed as its click command parses them; a mistake is a CommandError."""

    def __init__(self, name: str) -> None:
        super().__init__(prog=f"memrun {name}", add_help=False, allow_abbrev=False)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise CommandError(f"{self.prog}: {message}")


def _workload(p: _Parser, default: str | None = workloads.DEFAULT) -> None:
    p.add_argument("--workload", choices=workloads.names(), default=default)


def _variants(p: _Parser) -> None:
    p.add_argument("-r", "--variant", dest="variants", action="append", default=[])


def _shown() -> dict[str, _Parser]:
    """report, plot, inspect and compare: as runner.cli.showing, inspecting and comparing say."""
    from runner.results import METRICS
    from runner.results.record import TIME_METRICS

    report, plot, inspect, compare = (_Parser(n) for n in ("report", "plot", "inspect", "compare"))
    for p in (report, plot):
        p.add_argument("results", nargs="*")
        p.add_argument("--metric", choices=list(METRICS), default="peak_rss")
    report.add_argument("--format", dest="fmt", default="md")
    report.add_argument("-o", "--output", default=None)
    report.add_argument("--section", default=None)
    _workload(report, None)  # None: not given (the HTML page then shows every workload)
    plot.add_argument("--out", dest="out_dir", default="plots")
    _workload(plot)
    inspect.add_argument("results", nargs="?", default="results")
    _variants(inspect)
    inspect.add_argument("--n", dest="n_text", default=None)
    inspect.add_argument("--run", dest="run_id", default=None)
    inspect.add_argument("--out", dest="out_dir", default="inspect")
    inspect.add_argument("--overlap", action="store_true")
    _workload(inspect)
    compare.add_argument("base")
    compare.add_argument("other")
    compare.add_argument("--metric", choices=[*METRICS, *TIME_METRICS], default="peak_rss")
    compare.add_argument("--threshold", default="5%")
    compare.add_argument("--floor", dest="floor_text", default=None)
    compare.add_argument("--strict", action="store_true")
    compare.add_argument("--format", dest="fmt", choices=["md", "csv", "json"], default="md")
    _workload(compare)
    return {"report": report, "plot": plot, "inspect": inspect, "compare": compare}


def _derived() -> dict[str, _Parser]:
    """`derive value`, `table`, `checks`, `searches`, `proofs`, `explain`, `independent` and
    `suite-runs`: as runner.cli.deriving and deriving_pages say."""
    names = ("value", "table", "checks", "searches", "proofs", "explain", "independent", "suite-runs")
    value, table, checks, searches, proofs, explain, independent, suite_runs = (
        _Parser(f"derive {n}") for n in names
    )
    value.add_argument("selection")
    value.add_argument("quantity")
    value.add_argument("--against", default=None)
    value.add_argument("--against-variant", default=None)
    value.add_argument("--as", dest="how", choices=["ratio", "difference"], default="ratio")
    value.add_argument("--show", choices=["one", "range", "span", "median", "each", "count", "total"],
                       default="one")  # fmt: skip
    table.add_argument("--from", dest="sources", action="append", required=True)
    table.add_argument("--col", dest="columns", action="append", required=True)
    table.add_argument("--sort", type=int, default=1)
    for p in (value, table):
        _variants(p)
    for p in (checks, searches):
        p.add_argument("selection")
    searches.add_argument("--last", action="store_true")
    for p in (value, table, checks, searches):
        _workload(p)
    explain.add_argument("directory", type=Path)
    for p in (independent, suite_runs):
        p.add_argument("file", type=Path)
    suite_runs.add_argument("--latest-purged", action="store_true")
    return {f"derive {n}": p for n, p in zip(names, (value, table, checks, searches, proofs, explain,
                                                      independent, suite_runs), strict=True)}  # fmt: skip


def parsers() -> dict[str, _Parser]:
    """Every command derive can make, by name ("report", "derive value"), with its parser."""
    return {**_shown(), **_derived()}


MADE: dict[str, Made] = {
    "report": readers.report,
    "plot": readers.plot,
    "inspect": readers.inspect,
    "compare": readers.compare,
    "derive value": readers.value,
    "derive table": readers.table,
    "derive checks": readers.checks,
    "derive searches": readers.searches,
    "derive proofs": readers.proofs,
    "derive explain": readers.explain,
    "derive independent": readers.independent,
    "derive suite-runs": readers.suite_runs,
}


def output(argv: list[str]) -> str:
    """What `memrun ARGV` prints on its standard output, its files written where it says (ARGV:
    the words after memrun). CommandError for a command derive cannot make, words its command
    would refuse, or data it cannot read (the library's message)."""
    name = " ".join(argv[:2]) if argv[:1] == ["derive"] else argv[0] if argv else ""
    if name not in MADE:
        raise CommandError(f"memrun {name}: not a command that memrun derive makes ({', '.join(MADE)})")
    args = parsers()[name].parse_intermixed_args(argv[len(name.split()) :])
    try:
        return MADE[name](args)
    except ValueError as e:  # the library's refusals (ResultsError, QueryError…), as the command says them
        raise CommandError(str(e)) from None
