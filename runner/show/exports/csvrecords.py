"""`memrun report --format csv`: a table's records as CSV, one row per record and one column per
field (its flat records: a list is one value), raw numbers for other tools."""

from __future__ import annotations

from runner.show.exports.exporter import Table, TableExporter
from runner.show.exports.registry import register


@register
class Csv(TableExporter):
    name = "csv"

    def table(self, table: Table) -> str:
        import pandas as pd

        return pd.DataFrame(table.flat_records()).to_csv(index=False)
