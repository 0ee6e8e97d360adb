"""What the workloads that keep their view code in a `show` module of their package (connections,
http) share: each view hook of runner.workload.Workload handed to that module, imported only when a
view asks, so that describing the workload never imports pandas or matplotlib."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

from runner.workload import Workload


class ShowsInPackage(Workload):
    """A workload whose `<package>.show` module has extras, legend, heading, tail, figures and
    client_line: the one place those hooks are forwarded, whichever workload it is."""

    def _show(self) -> ModuleType:
        module = self.module("show")
        if module is None:
            raise NotImplementedError(f"workload {self.name}: no {self.package}.show")
        return module

    def report_extras(self, runs: Any) -> dict[tuple[str, int], dict[str, Any]]:
        return self._show().extras(runs)

    def legend(self, metric: str, summary: Any) -> str | None:
        return self._show().legend(metric, summary)

    def heading(self, head: str) -> str:
        return self._show().heading(head)

    def tail(self, recs: list[dict[str, Any]]) -> str:
        return self._show().tail(recs)

    def figures(
        self, runs: Any, cells: list[dict[str, Any]], metric: str, prefix: str, caption: str
    ) -> Iterator[tuple[str, Any]]:
        return self._show().figures(runs, cells, metric, prefix, caption)

    def client_line(self, n: int, client: Mapping[str, Any]) -> str | None:
        return self._show().client_line(n, client)
