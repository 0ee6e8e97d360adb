"""What a format of `memrun report` is, as hyperfine's `src/export/` has it: one exporter per
format, each in a module of its own that registers it (runner.show.exports.registry), so a format
is its module (and a built-in's line in registry.BUILT_IN), with no branch on its name elsewhere.

An exporter says how it is written (one file per label? its text written as it is, or with a
final newline added?) and renders what it is given: the selected runs of `memrun report`
(a Request), and, for the table formats (md, csv, json), any table (a Table: the report's, the
labelled report's, `memrun compare`'s), which hands over its rows and its Markdown and lets the
format pick. This module stays light (no pandas, no figures): the CLI reads the registry to list
the formats before anything is rendered."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import pandas as pd

    from runner.workload import Workload


@dataclass(eq=False)
class Request:
    """What `memrun report` asks for: one workload's selected runs as loaded (capacity probes
    included: shown() leaves them out where cells are shown), with the options that shape it."""

    workload: Workload
    runs: pd.DataFrame
    sweeps: list[dict[str, Any]]
    metric: str
    capacity: list[dict[str, Any]]
    models: dict[str, str] | None = None
    section: str | None = None

    def shown(self) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
        """The runs and sweeps a table of cells shows (runner.show.document.shown)."""
        from runner.show.document import shown

        return shown(self.runs, self.sweeps)


class Table(ABC):
    """A table the table formats write: its records (one dict per row, raw numbers) and its own
    Markdown layout, which a record list cannot give (column groups, captions, legends)."""

    @abstractmethod
    def markdown(self) -> str:
        """The table as Markdown, ending with a newline."""

    @abstractmethod
    def records(self) -> list[dict[str, Any]]:
        """The rows as JSON has them (a field may hold a list or a dict)."""

    def flat_records(self) -> list[dict[str, Any]]:
        """The rows as CSV has them, one value per field: the records, unless a table says how
        it flattens a list."""
        return self.records()


class Exporter(ABC):
    """One format of `memrun report --format`."""

    name: ClassVar[str]
    """The word `--format` takes."""
    per_label: ClassVar[bool] = False
    """One file per label (-o FILE writes FILE.SLUG.ext for each when there are several): the
    exports for tools that keep one series per machine (runner.show.exports.per_label)."""
    raw: ClassVar[bool] = False
    """The text is the whole file as it is written (html); else the terminal or -o adds a
    newline after it."""
    every_workload: ClassVar[bool] = False
    """Without --workload, one document of every workload the results hold (workloads())."""

    @abstractmethod
    def report(self, request: Request) -> str:
        """The report of one workload's runs in this format."""

    def workloads(
        self,
        selections: list[tuple[Workload, pd.DataFrame, list[dict[str, Any]], list[dict[str, Any]]]],
        metric: str,
        models: dict[str, str] | None,
    ) -> str:
        """One document of every workload given as (workload, runs, sweeps, capacity answers);
        only for the formats that say every_workload."""
        raise NotImplementedError(f"{self.name} is one workload's report")


class TableExporter(Exporter):
    """A format any table can be written in (md, csv, json)."""

    @abstractmethod
    def table(self, table: Table) -> str:
        """The table in this format, ending with a newline."""

    def report(self, request: Request) -> str:
        """The report's table (one column group or a `label` field per label); `--section`
        picks a section of the Markdown report, whatever the format."""
        if request.section:
            from runner.show.document import markdown_report

            return markdown_report(request)
        from runner.show.tables import labelled

        runs, sweeps = request.shown()
        return self.table(labelled.table(runs, request.metric, sweeps))
