"""`memrun report --format html`: the self-contained page (runner.show.exports.htmlpage, imported
only when a page is made: it draws figures), of every workload the results hold unless --workload
names one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runner.show.exports.exporter import Exporter, Request
from runner.show.exports.registry import register

if TYPE_CHECKING:
    import pandas as pd

    from runner.workload import Workload


@register
class Html(Exporter):
    name = "html"
    raw = True
    every_workload = True

    def report(self, request: Request) -> str:
        selection = (request.workload, request.runs, request.sweeps, request.capacity)
        return self.workloads([selection], request.metric, request.models)

    def workloads(
        self,
        selections: list[tuple[Workload, pd.DataFrame, list[dict[str, Any]], list[dict[str, Any]]]],
        metric: str,
        models: dict[str, str] | None,
    ) -> str:
        from runner.show.document import page

        return page(selections, metric, models)
