"""The exports for other tools, one file per label: Bencher and github-action-benchmark keep a
series per benchmark name, so the machine (the label, which carries the kernel build) is the
file's, not the name's. Bencher takes it as its testbed (`bencher run --testbed SLUG`), and
github-action-benchmark as a file of its own (one `output-file-path` per machine)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from runner.analysis.cells import cells


def slug(label: str) -> str:
    """A label as Bencher's testbed slug and a file name's part: lower case, letters, digits and
    single hyphens ("vm [kernel 6.18.44-fc-v657]" -> "vm-kernel-6-18-44-fc-v657")."""
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") or "default"


def render(fmt: str, runs: pd.DataFrame, sweeps: list[dict[str, Any]]) -> dict[str, str]:
    """label -> the bmf or gab document of its cells (labels without a figure have none)."""
    from runner.show.exports import bmf, gab

    module = bmf if fmt == "bmf" else gab
    return {label: module.render(found) for label, found in cells(runs, sweeps).items()}


def path_for(output: Path, label: str, several: bool) -> Path:
    """Where one label's file goes: OUTPUT itself for a single label, else OUTPUT with the
    label's slug before its suffix (gab.json -> gab.vm.json)."""
    if not several:
        return output
    return output.with_name(f"{output.stem}.{slug(label)}{output.suffix}")


def testbed_hint(fmt: str, label: str, path: Path | None) -> str | None:
    """The line that tells how to upload a BMF file to Bencher with its machine as the testbed."""
    if fmt != "bmf":
        return None
    where = f"--file {path}" if path is not None else "(from standard input)"
    return f"bencher run --testbed {slug(label)} --adapter json {where}"
