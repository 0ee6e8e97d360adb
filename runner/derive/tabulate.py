"""`memrun derive table`: figures of several selections side by side, one row per variant, for
a table of the docs (the quantities are runner.derive.query's)."""

from __future__ import annotations

from dataclasses import dataclass

from runner.derive.query import Quantity, QueryError, Value, select, values
from runner.workload import Workload


@dataclass(frozen=True)
class Column:
    header: str
    parts: list[tuple[str, Quantity]]  # (selection name, quantity)

    @classmethod
    def parse(cls, text: str, names: set[str]) -> Column:
        header, eq, spec = text.partition("=")
        if not eq or not spec.strip():
            raise QueryError(f"{text!r}: a column is HEADER=NAME:QUANTITY[+NAME:QUANTITY…]")
        parts = []
        for part in spec.split("+"):
            name, colon, quantity = part.strip().partition(":")
            if not colon or name not in names:
                raise QueryError(
                    f"{part!r}: each part is NAME:QUANTITY, NAME one of --from ({', '.join(sorted(names))})"
                )
            parts.append((name, Quantity.parse(quantity)))
        return cls(header.strip(), parts)


def named(sources: list[str] | tuple[str, ...]) -> dict[str, str]:
    """`--from NAME=DIR[:LABEL][#K-M]`, each given once: selection name -> its text."""
    found = {}
    for s in sources:
        name, eq, text = s.partition("=")
        if not eq:
            raise QueryError(f"--from {s!r}: NAME=DIR[:LABEL]")
        found[name.strip()] = text.strip()
    return found


def table(
    sources: dict[str, str],
    columns: list[str],
    workload: Workload,
    variants: tuple[str, ...] = (),
    sort: int = 1,
) -> str:
    """`memrun derive table`: a Markdown table, one row per variant, rows sorted by a column's
    first figure (variants without one last)."""
    selections = {name: select(text, workload) for name, text in sources.items()}
    cols = [Column.parse(c, set(sources)) for c in columns]
    cells: list[list[dict[str, Value]]] = [[values(selections[name], q) for name, q in c.parts] for c in cols]
    names = sorted({v for col in cells for part in col for v in part if not variants or v in variants})
    if not 0 <= sort <= len(cols):
        raise QueryError(f"--sort {sort}: there are {len(cols)} columns (0: the order of -r)")

    def key(v: str) -> tuple[bool, float, str]:
        if sort == 0:  # as -r gave them (versions in version order)
            return (False, float(variants.index(v)) if v in variants else 1e12, v)
        x = cells[sort - 1][0].get(v)
        return (x is None or x.number is None, x.number if x and x.number is not None else 0.0, v)

    lines = ["| variant | " + " | ".join(c.header for c in cols) + " |", "|---|" + "---|" * len(cols)]
    for v in sorted(names, key=key):
        row = []
        for c, col in zip(cols, cells, strict=True):
            found = [part.get(v) for part in col]
            if all(x is None for x in found):
                row.append("—")
            elif all(x is not None and x.number is None for x in found):
                row.append(f"no figure: {next(x.reason for x in found if x is not None)}")
            else:
                row.append(
                    " · ".join(
                        q.format(x.number) if x and x.number is not None else "—"
                        for (_, q), x in zip(c.parts, found, strict=True)
                    )
                )
        lines.append(f"| {v} | " + " | ".join(row) + " |")
    return "\n".join(lines)
