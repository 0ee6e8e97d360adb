"""What `memrun report` writes: the document of one workload's results (or of every workload, for
a format that holds them all, the HTML page), in the format asked, to standard output or a file
(or one file per label, for the per-label exports). The command line parses and prints; the
choices of what to render and where it goes are made here.

Every failure is a ReportError of one line (a path that cannot be written, results that cannot
be read), said by the command line as bad input."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runner.results.selected import Selected
from runner.show.exports.exporter import Exporter
from runner.show.exports.per_label import PerLabelExporter

Log = Callable[[str], None]


class ReportError(ValueError):
    """The report cannot be made or written: one line saying why."""


@dataclass(frozen=True)
class Request:
    """What the command line asked for."""

    exporter: Exporter
    metric: str
    output: Path | None
    section: str | None = None
    models: dict[str, str] | None = None  # variant -> model (how it keeps its tasks)


@dataclass(frozen=True)
class Written:
    """What to print: the text itself (no output file) or the paths written, one a line; and
    whether the text ends without a newline of its own (raw formats end as they are)."""

    text: str | None
    paths: tuple[Path, ...] = ()
    raw: bool = False


def check_output(output: Path | None) -> None:
    """A path that cannot be written fails before seconds of rendering, in one line."""
    from runner.show.exports.output import check_writable

    if output is not None:
        try:
            check_writable(output)
        except OSError as e:
            raise ReportError(str(e)) from None


def every_workload(request: Request, results: list[Path], say: Log) -> Written:
    """One document of every workload in the results (the HTML page)."""
    from runner.results import ResultsError
    from runner.results.selected import NothingSelected, load_workloads

    try:
        found = load_workloads(results)
    except (ResultsError, NothingSelected) as e:
        raise ReportError(str(e)) from None
    for line in dict.fromkeys(w for s in found.values() for w in s.warnings):
        say(line)
    loaded = [(w, s.runs, s.sweeps, s.capacity) for w, s in found.items()]
    with _said():
        text = request.exporter.workloads(loaded, request.metric, request.models or {})
    return _deliver(request, text)


def one_workload(request: Request, selected: Selected, say: Log) -> Written:
    """The document of one workload's results; a per-label export writes a file per label
    (gab.json -> gab.SLUG.json when there are several) and says each one's hint."""
    from runner.show import document

    exporter = request.exporter
    with _said():
        if not isinstance(exporter, PerLabelExporter):
            text = document.report(
                selected.runs,
                selected.sweeps,
                exporter.name,
                request.metric,
                selected.capacity,
                request.models or {},
                request.section,
            )
            return _deliver(request, text)
        files = document.exports(selected.runs, selected.sweeps, exporter.name)
        if request.output is None:
            text = exporter.one(files)  # one label, or refused
            if (label := next(iter(files))) and (hint := exporter.hint(label, None)):
                say(hint)
            return Written(text, raw=exporter.raw)
        return Written(None, tuple(_per_label(files, exporter, request.output, say)))


def _deliver(request: Request, text: str) -> Written:
    from runner.show.exports.output import write_text

    raw = request.exporter.raw
    if request.output is None:
        return Written(text, raw=raw)
    with _said(request.output):
        write_text(request.output, text if raw else text + "\n")
    return Written(None, (request.output,))


def _per_label(files: dict[str, str], exporter: PerLabelExporter, output: Path, say: Log) -> list[Path]:
    from runner.show.exports.output import write_text
    from runner.show.exports.per_label import path_for

    written = []
    for label, text in files.items():
        path = path_for(output, label, len(files) > 1)
        with _said(path):
            write_text(path, text)
        if hint := exporter.hint(label, path) if label else None:
            say(hint)
        written.append(path)
    return written


class _said:
    """OSError and ValueError raised inside become a ReportError of one line (a write's names
    the path it could not write)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, e: BaseException | None, tb: object) -> bool:
        if isinstance(e, OSError):
            where = f"cannot write {self.path}: {e.strerror}" if self.path else f"cannot write: {e.strerror}"
            raise ReportError(str(e) if e.strerror is None else where) from None
        if isinstance(e, ValueError) and not isinstance(e, ReportError):
            raise ReportError(str(e)) from None
        return False
