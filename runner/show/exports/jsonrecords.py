"""`memrun report --format json`: a table's records as a JSON list, raw numbers for other tools."""

from __future__ import annotations

import json

from runner.show.exports.exporter import Table, TableExporter
from runner.show.exports.registry import register


@register
class Json(TableExporter):
    name = "json"

    def table(self, table: Table) -> str:
        return json.dumps(table.records(), indent=1) + "\n"
