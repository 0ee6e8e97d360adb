"""The exports for other tools, one file per label: Bencher and github-action-benchmark keep a
series per benchmark name, so the machine (the label, which carries the kernel build) is the
file's, not the name's. Bencher takes it as its testbed (`bencher run --testbed SLUG`), and
github-action-benchmark as a file of its own (one `output-file-path` per machine)."""

from __future__ import annotations

import re
from abc import abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runner.show.exports.exporter import Exporter, Request

if TYPE_CHECKING:
    import pandas as pd

    from runner.analysis.cells import Cell


def slug(label: str) -> str:
    """A label as Bencher's testbed slug and a file name's part: lower case, letters, digits and
    single hyphens ("vm [kernel 6.18.44-fc-v657]" -> "vm-kernel-6-18-44-fc-v657")."""
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") or "default"


class PerLabelExporter(Exporter):
    """A format whose file holds one label's cells (bmf, gab)."""

    per_label = True

    @abstractmethod
    def render(self, found: list[Cell]) -> str:
        """One label's cells as its file, ending with a newline."""

    def hint(self, label: str, path: Path | None) -> str | None:
        """A line for standard error on how to use one label's file (None: nothing to say)."""
        return None

    def files(self, runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> dict[str, str]:
        """label -> its file (runner.show.document.shown's runs); one empty document, under no
        label, when nothing has a figure."""
        from runner.show.document import shown

        runs, sweeps = shown(runs, sweeps)
        return render(self, runs, sweeps) or {"": self.render([])}

    def one(self, files: dict[str, str]) -> str:
        """The one label's file, without its last newline; ValueError when there are several."""
        if len(files) > 1:
            raise ValueError(
                f"{len(files)} labels ({', '.join(files)}): a {self.name} file holds one machine's series; "
                "-o FILE writes one file per label"
            )
        return next(iter(files.values())).rstrip("\n")

    def report(self, request: Request) -> str:
        """The file of the runs' one label (several are refused: -o writes one file each)."""
        return self.one(self.files(*request.shown()))


def render(exporter: PerLabelExporter, runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> dict[str, str]:
    """label -> the exporter's document of its cells (labels without a figure have none)."""
    from runner.analysis.cells import cells

    return {label: exporter.render(found) for label, found in cells(runs, sweeps).items()}


def path_for(output: Path, label: str, several: bool) -> Path:
    """Where one label's file goes: OUTPUT itself for a single label, else OUTPUT with the
    label's slug before its suffix (gab.json -> gab.vm.json)."""
    if not several:
        return output
    return output.with_name(f"{output.stem}.{slug(label)}{output.suffix}")
