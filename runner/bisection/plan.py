"""What a `memrun bisect` is asked to search, checked before anything is built: the variant's
version axis, the releases the registry lists between FROM and TO, N, the threshold, the sleep
and how many runs each version starts with. Every refusal is a BisectError of one line."""

from __future__ import annotations

from dataclasses import dataclass

from runner.bisection.search import Outcome
from runner.inputs import SleepSpec, parse_n
from runner.tasks import Variant
from runner.tasks.versionspec import VersionSpec


class BisectError(ValueError):
    """A search that cannot be made as asked: one line saying why."""


@dataclass(frozen=True)
class Bisection:
    """One search's question: which of these versions of spec first changes the per-task cost."""

    variant: Variant
    spec: VersionSpec
    versions: list[str]  # the registry's releases from FROM to TO, both ends included, in order
    n: int
    threshold: float  # a fraction: 0.1 for 10 %
    sleep: SleepSpec
    repeats: int  # runs at each N that each version starts with

    def header(self, metric: str) -> str:
        """The line said before the search: the range, what is compared and the build bound."""
        return (
            f"bisect {self.variant.name}: {self.spec.name} {self.versions[0]} .. {self.versions[-1]}, "
            f"{len(self.versions)} releases in the registry's list; per-task {metric} at N={self.n:,}, "
            f"threshold {self.threshold:.0%}; at most {Outcome(self.versions, self.threshold).bound} builds"
        )


def plan(
    variant: Variant,
    library: str,
    span: str,
    n_text: str,
    threshold: str,
    sleep_text: str,
    repeat: int | None,
) -> Bisection:
    """The search `memrun bisect VARIANT LIBRARY FROM..TO --n N` asks for: LIBRARY a version axis
    of the variant's manifest, FROM and TO releases the registry lists (it is asked for the list),
    N at least 2 (the per-task cost compares N with N=1). repeat None: 3 runs where the manifest
    says the runtime's runs spread, else 1."""
    from runner.analysis.compare import parse_threshold
    from runner.tasks import registry

    spec = variant.folder.versions.get(library)
    if spec is None or not spec.applies_to(variant.name):
        axes = [n for n, s in variant.folder.versions.items() if s.applies_to(variant.name)]
        raise BisectError(
            f"{variant.name} has no version axis {library!r} (its axes: {', '.join(axes) or 'none'})"
        )
    low, sep, high = span.partition("..")
    if not sep or not low or not high:
        raise BisectError(f"expected FROM..TO (e.g. 1.20.0..1.54.1), got {span!r}")
    try:  # a registry error is a ValueError too
        n = parse_n(n_text)
        limit = parse_threshold(threshold)
        sleep = SleepSpec.parse(sleep_text)
        ends = [registry.choose(variant.folder, spec, v)[0] for v in (low, high)]
        versions = registry.choose(variant.folder, spec, f"{ends[0]}..{ends[1]}")
    except ValueError as e:
        raise BisectError(str(e)) from None
    if n < 2:
        raise BisectError("--n must be at least 2: the per-task cost compares N with N=1")
    versions = sorted({*versions, *ends}, key=registry.key)
    return Bisection(variant, spec, versions, n, limit, sleep, repeat or (3 if variant.spread else 1))
