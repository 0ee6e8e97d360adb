"""runner.show.exports.registry: the six built-in formats in their order, and a seventh that is one
file (a module that registers its exporter as the built-ins do), which `memrun report --format`
then takes with nothing else touched."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main
from runner.show.document import report
from runner.show.exports import registry
from runner.show.exports.exporter import TableExporter
from runner.show.tables.report import render
from tests.support.crafted import write_results

# The whole new format: a module like runner/show/exports/csvrecords.py, tab-separated.
TSV = """
from runner.show.exports.exporter import Table, TableExporter
from runner.show.exports.registry import register


@register
class Tsv(TableExporter):
    name = "tsv"

    def table(self, table: Table) -> str:
        rows = table.flat_records()
        fields = list(rows[0]) if rows else []
        lines = ["\\t".join(fields)] + ["\\t".join(str(r[f]) for f in fields) for r in rows]
        return "\\n".join(lines) + "\\n"
"""


@pytest.fixture
def tsv(tmp_path: Path) -> Iterator[str]:
    """The tsv format's module written to a file of its own and imported (its @register runs);
    forgotten again after the test, so no other test sees a seventh format."""
    path = tmp_path / "memrun_tsv_format.py"
    path.write_text(TSV)
    spec = importlib.util.spec_from_file_location("memrun_tsv_format", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield "tsv"
    finally:
        registry.unregister("tsv")
        sys.modules.pop(spec.name, None)


@pytest.fixture
def results(tmp_path: Path) -> Path:
    return write_results(tmp_path / "r", "laptop", {("go", 1): [2.0, 2.2], ("go", 10_000): [30.0]})


def test_the_six_built_in_formats_in_their_order():
    assert registry.names() == ["md", "csv", "json", "html", "bmf", "gab"]
    tables = [e.name for e in registry.exporters() if isinstance(e, TableExporter)]
    assert tables == ["md", "csv", "json"]
    assert [e.name for e in registry.exporters() if e.per_label] == ["bmf", "gab"]
    assert [e.name for e in registry.exporters() if e.raw] == ["html"]


def test_an_unknown_format_names_the_formats_of_its_kind(results):
    with pytest.raises(
        ValueError, match="unknown format 'xlsx'; choose one of md, csv, json, html, bmf, gab"
    ):
        registry.get("xlsx")
    with pytest.raises(ValueError, match=r"unknown format 'html'; choose one of md, csv, json$"):
        registry.get("html", TableExporter)


def test_a_name_is_one_formats():
    class Other(TableExporter):
        name = "md"

        def table(self, table):
            return ""

    with pytest.raises(ValueError, match="already"):
        registry.register(Other)
    assert type(registry.get("md")).__module__ == "runner.show.exports.markdown"


def test_a_format_in_one_file_is_a_choice_of_memrun_report(tsv, results):
    assert registry.names() == ["md", "csv", "json", "html", "bmf", "gab", "tsv"]
    out = CliRunner().invoke(main, ["report", str(results), "--format", tsv])
    assert out.exit_code == 0, out.output
    head, *rows = out.output.rstrip("\n").split("\n")
    assert head.split("\t")[:3] == ["variant", "n", "metric"]
    assert [r.split("\t")[:2] for r in rows] == [["go", "1"], ["go", "10000"]]
    help_text = CliRunner().invoke(main, ["report", "--help"], terminal_width=200).output
    assert "[md|csv|json|html|bmf|gab|tsv]" in help_text


def test_a_format_in_one_file_writes_every_table(tsv, results):
    from runner.results import load_sweeps
    from runner.results.summary import load_runs

    runs, sweeps = load_runs([results]), load_sweeps([results])
    assert report(runs, sweeps, tsv, "peak_rss", []) == render(runs, tsv, sweeps=sweeps)
    assert render(runs, tsv).startswith("variant\tn\tmetric\t")


def test_the_format_is_gone_after_its_test(results):
    assert "tsv" not in registry.names()
    out = CliRunner().invoke(main, ["report", str(results), "--format", "tsv"])
    assert out.exit_code == 2 and "'tsv' is not one of" in out.output
