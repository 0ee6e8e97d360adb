"""The formats of `memrun report`, by name: each exporter module registers its format when it is
imported (`@register`), and the CLI's `--format` choices, the tables and the report look formats
up here, so no other module names one.

The built-in modules are imported on the first look-up, and listed in BUILT_IN's order (the order
`memrun report --help` shows), whoever imported one of them first; a format registered from any
other module (a test's, say) comes after them."""

from __future__ import annotations

import importlib
from typing import TypeVar

from runner.show.exports.exporter import Exporter

BUILT_IN = (
    "runner.show.exports.markdown",
    "runner.show.exports.csvrecords",
    "runner.show.exports.jsonrecords",
    "runner.show.exports.htmlreport",
    "runner.show.exports.bmf",
    "runner.show.exports.gab",
)

_exporters: dict[str, Exporter] = {}

E = TypeVar("E", bound=Exporter)
C = TypeVar("C", bound=type[Exporter])


def register(cls: C) -> C:
    """Class decorator: the format's one exporter, under its name. A name is one format's: a
    second class under it is an error (the same class again, on a module's reload, replaces it)."""
    exporter = cls()
    old = _exporters.get(exporter.name)
    if old is not None and _origin(type(old)) != _origin(cls):
        raise ValueError(f"format {exporter.name!r} is already {_origin(type(old))}'s")
    _exporters[exporter.name] = exporter
    return cls


def unregister(name: str) -> None:
    """Forget a format (a test's, when it ends)."""
    _exporters.pop(name, None)


def exporters() -> list[Exporter]:
    """Every format: the built-ins in BUILT_IN's order, then the others as they registered."""
    for module in BUILT_IN:
        importlib.import_module(module)
    rank = {module: i for i, module in enumerate(BUILT_IN)}
    return sorted(_exporters.values(), key=lambda e: rank.get(type(e).__module__, len(BUILT_IN)))


def names(kind: type[Exporter] = Exporter) -> list[str]:
    """The formats of that kind (every format, or those that render a table)."""
    return [e.name for e in exporters() if isinstance(e, kind)]


def get(name: str, kind: type[E] = Exporter) -> E:  # type: ignore[assignment]
    """The format called name, of the kind asked (a TableExporter for a table); ValueError names
    the formats of that kind when there is none."""
    found = [e for e in exporters() if isinstance(e, kind)]
    for exporter in found:
        if exporter.name == name:
            return exporter
    raise ValueError(f"unknown format {name!r}; choose one of {', '.join(e.name for e in found)}")


def _origin(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
