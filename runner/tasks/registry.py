"""The versions a registry (or this machine) has of one [versions.NAME], and what a user's choice
of them means: `1.22.0`, `1.18..1.26/minor`, `12..26/major`, `1.20.0..1.54.1`, a preset name.

A version the registry does not list is an error naming the nearest ones it does: a sweep must
never measure the installed version under another version's name.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from runner.paths import locations
from runner.tasks.manifest import TaskFolder
from runner.tasks.template import TemplateError, expand
from runner.tasks.toolchain import candidates, probe, resolve
from runner.tasks.versionspec import VersionSpec

INSTALLED = "installed"  # the default build, as a choice beside versions
_RELEASE = re.compile(r"^\d+(?:\.\d+)*$")
_cache: dict[tuple[str, str], Listing] = {}
# A guest (runner.vm) has no network: the host gives it the listings it used, in a file this names.
LISTINGS_ENV = "MEMRUN_LISTINGS"


class RegistryError(ValueError):
    """Versions cannot be listed, or a choice names none the registry has: one line for the user."""


def key(version: str) -> tuple[int, ...]:
    """Numeric order: 1.9 < 1.18; trailing zeros do not count (Go's "1.18" is 1.18.0)."""
    parts = [int(x) for x in re.findall(r"\d+", version)]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def is_release(version: str) -> bool:
    """1.22.0, not 1.22rc1 or 2.0.0-beta.1: ranges and presets choose releases only."""
    return bool(_RELEASE.match(version))


def same(a: str, b: str) -> bool:
    return key(a) == key(b) and is_release(a) == is_release(b)


@dataclass(frozen=True)
class Listing:
    """Every version found, in ascending order, and for machine-found versions where each one is."""

    spec: VersionSpec
    versions: list[str]
    paths: dict[str, str]  # version -> the tool's path, for versions found on the machine
    source: str = ""  # where they were listed: the command as run, or the machine's candidates

    def releases(self) -> list[str]:
        return [v for v in self.versions if is_release(v)]

    def find(self, version: str) -> str | None:
        """The listed spelling of `version` ("1.18" for 1.18.0 in Go's list), or None."""
        return next((v for v in self.versions if same(v, version)), None)

    def nearest(self, version: str, count: int = 3) -> list[str]:
        want = key(version)
        ranked = sorted(self.releases(), key=lambda v: (_distance(key(v), want), key(v)))
        return sorted(ranked[:count], key=key)

    def span(self) -> str:
        rel = self.releases()
        return f"{len(rel)} releases, {rel[0]} … {rel[-1]}" if rel else "no releases"


def _distance(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    width = max(len(a), len(b))
    pa, pb = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return tuple(abs(x - y) for x, y in zip(pa, pb, strict=True))


def listing(tf: TaskFolder, spec: VersionSpec) -> Listing:
    """The versions of `spec` (cached per process: a bisect asks many times, the registry once)."""
    cache_key = (str(tf.manifest), spec.name)
    if cache_key not in _cache:
        given = _given(cache_key, spec)
        _cache[cache_key] = given or (_machine(tf, spec) if spec.tool else _registry(tf, spec))
    return _cache[cache_key]


def snapshot(path: Path) -> None:
    """Write the listings this process has used, for a guest to read (LISTINGS_ENV): a guest
    chooses the same versions the host chose and installed, without a registry."""
    rows = [
        {"manifest": m, "name": n, "versions": got.versions, "paths": got.paths, "source": got.source}
        for (m, n), got in _cache.items()
    ]
    path.write_text(json.dumps(rows))


def _given(cache_key: tuple[str, str], spec: VersionSpec) -> Listing | None:
    """The host's listing of this axis, in a guest; None elsewhere, or for an axis it did not list."""
    where = os.environ.get(LISTINGS_ENV)
    if not where or not Path(where).exists():
        return None
    for row in json.loads(Path(where).read_text()):
        if (row["manifest"], row["name"]) == cache_key:
            source = f"{row['source']}, as the host listed it"
            return Listing(spec, list(row["versions"]), dict(row["paths"]), source)
    return None


def _registry(tf: TaskFolder, spec: VersionSpec) -> Listing:
    tools = resolve(tf.name, tf.dir.parent)
    vals = {n: t.path for n, t in tools.items() if t.path}
    vals.update(locations(), dir=str(tf.dir))
    try:
        argv = [expand(a, vals) for a in spec.list or []]
    except TemplateError as e:
        missing = [t.problem for t in tools.values() if t.path is None and t.problem]
        raise RegistryError(f"cannot list {spec.name} versions: {missing[0] if missing else e}") from None
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tf.dir)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RegistryError(f"cannot list {spec.name} versions: {' '.join(argv)}: {e}") from None
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RegistryError(f"cannot list {spec.name} versions: `{' '.join(argv)}` failed: {tail}")
    pattern = re.compile(spec.list_regex)
    found = [m.group(1) if m.groups() else m.group(0) for m in pattern.finditer(proc.stdout)]
    versions = sorted(dict.fromkeys(found), key=lambda v: (key(v), not is_release(v), v))
    if not versions:
        raise RegistryError(f"cannot list {spec.name} versions: `{' '.join(argv)}` printed none")
    return Listing(spec, versions, {}, f"`{' '.join(argv)}`")


def _machine(tf: TaskFolder, spec: VersionSpec) -> Listing:
    """Every candidate of the tool found here (all of them, old ones too: the axis is for
    choosing, and a version too old for the program fails as a row that says so)."""
    tool = tf.tools[spec.tool or ""]
    paths: dict[str, str] = {}
    for path in candidates(tool):
        found = probe(tool, path)
        if not isinstance(found, str) and found.version and found.version not in paths:
            paths[found.version] = path
    if not paths:
        raise RegistryError(f"no {spec.tool} found on this machine (looked for {', '.join(tool.find)})")
    return Listing(spec, sorted(paths, key=key), paths, f"the {spec.tool} found on this machine")


def _in_range(version: str, low: str, high: str) -> bool:
    """Inclusive, bounds as prefixes: `..1.26` takes every 1.26.x, `12..` every 12.x.y."""
    k = key(version)
    lo = key(low)
    hi = tuple(int(x) for x in re.findall(r"\d+", high))
    return k >= lo and k[: len(hi)] <= hi


def _latest_per(versions: list[str], width: int) -> list[str]:
    """The newest release of each series: width 1 = per major (Node 12), 2 = per minor (Go 1.18)."""
    best: dict[tuple[int, ...], str] = {}
    for v in versions:
        series = (*(int(x) for x in re.findall(r"\d+", v)), 0, 0)[:width]
        if series not in best or key(v) > key(best[series]):
            best[series] = v
    return [best[s] for s in sorted(best)]


def choose(tf: TaskFolder, spec: VersionSpec, text: str) -> list[str]:
    """What one comma-separated item of `--version NAME=...` chooses, as listed versions (and
    INSTALLED). RegistryError when it names a version the registry does not have."""
    item = text.strip()
    if not item:
        raise RegistryError(f"--version {spec.name}=: empty version")
    if item == INSTALLED:
        return [INSTALLED]
    if item in spec.presets:
        item = spec.presets[item]
    found = listing(tf, spec)
    range_match = re.fullmatch(r"([\w.]*)\.\.([\w.]*)(?:/(major|minor))?", item)
    if range_match:
        low, high, per = range_match.groups()
        chosen = [v for v in found.releases() if _in_range(v, low or "0", high or "999999")]
        if per:
            chosen = _latest_per(chosen, 1 if per == "major" else 2)
        if not chosen:
            raise RegistryError(f"{spec.name}: no release in {item} ({found.source} lists {found.span()})")
        return chosen
    listed = found.find(item)
    if listed is None:
        near = ", ".join(found.nearest(item))
        raise RegistryError(
            f"{spec.name} {item} is not in the registry "
            f"({found.source} lists {found.span()}; nearest: {near})"
        )
    return [listed]
