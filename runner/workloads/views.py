"""What the workloads that keep their view code in a `show` module of their package (connections,
http, tick) share: each view hook of runner.workload.Workload handed to that module, imported only
when a view asks, so that describing the workload never imports pandas or matplotlib."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from runner.workload import Workload

if TYPE_CHECKING:  # pandas only where a view asks
    import pandas as pd


def hgrm_folders(runs: pd.DataFrame, out_dir: Path, prefix: str) -> list[tuple[Path, pd.DataFrame]]:
    """Where a workload's `.hgrm` files go, and the runs of each: `<prefix>hgrm`, or where the runs
    hold several labels (machines), never pooled, a folder each (`<prefix>hgrm-LABEL`). A group
    keeps the runs' attrs (the baseline a workload's views read)."""
    from runner.show.text import file_word

    labels = sorted(runs["label"].dropna().unique()) if "label" in runs else []
    if len(labels) < 2:
        return [(out_dir / f"{prefix}hgrm", runs)]
    out = []
    for label in labels:
        group = runs[runs["label"] == label]
        group.attrs = runs.attrs
        out.append((out_dir / f"{prefix}hgrm-{file_word(label)}", group))
    return out


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

    def data_files(self, runs: Any, out_dir: Path, prefix: str) -> list[Path]:
        """Its `show` module's data files (the .hgrm latencies), where it writes any."""
        write = getattr(self._show(), "data_files", None)
        return write(runs, out_dir, prefix) if write is not None else []
