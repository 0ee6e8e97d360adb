"""The table of every sleep program's `ready` proof, made from the manifests (`[variant.proof]`).

tasks/README.md holds it as a generated block (`memrun derive proofs`), which `memrun derive`
writes and `memrun derive --check` (so CI) finds stale when the manifests changed. A program a
version table puts in a variant's place (`[[versions.NAME.before]]` with a `run`, with its own
`proof`) has its own row. Variants whose proofs read the same share one row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from runner.tasks.manifest import Variant
from runner.tasks.proof import Proof
from runner.tasks.versionspec import Before, VersionSpec

HEAD = "| variant | proof | what `ready N` proves, and how |\n|---|---|---|"


@dataclass(frozen=True)
class Row:
    names: list[str]
    proof: Proof

    def line(self) -> str:
        how = self.proof.how.replace("|", "\\|")
        return f"| {', '.join(self.names)} | {self.proof.label} | {how} |"


def _program(before: Before) -> str:
    """The file a `before` table runs instead (`{dir}/legacy.cjs` -> legacy.cjs), for its row."""
    files = [a.rsplit("/", 1)[-1] for a in before.run or [] if a.startswith("{dir}/")]
    return f"`{files[0]}`" if files else "its own program"


def _before_name(variant: Variant, spec: VersionSpec, before: Before) -> str:
    return f"{variant.name} with {spec.name} before {before.version} ({_program(before)})"


def rows(variants: Iterable[Variant]) -> list[Row]:
    """One row per distinct proof, in the manifests' order; each version table's own program too."""
    out: dict[Proof, Row] = {}

    def add(name: str, proof: Proof | None) -> None:
        if proof is not None:
            out.setdefault(proof, Row([], proof)).names.append(name)

    variants = list(variants)
    for v in variants:
        add(v.name, v.proof)
    for v in variants:
        for spec in v.folder.versions.values():
            for before in spec.before:
                if before.run is not None and spec.applies_to(v.name):
                    add(_before_name(v, spec, before), before.proof)
    return list(out.values())


def table(variants: Iterable[Variant]) -> str:
    """The Markdown table, one line per row."""
    return "\n".join([HEAD, *(r.line() for r in rows(variants))])
