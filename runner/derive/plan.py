"""derived.toml: what is made from committed data, and by which command.

    pages = ["README.md", "docs/*.md"]        # pages whose generated blocks are refreshed
    derived = ["plots/**/*.png", "plots/**/*.svg", "plots/*.html"]   # committed files that
                                              # must each be made by a command below
    [[make]]
    run = "memrun plot plots/data --out {out:plots}"
    keep = ["*-peak_rss.*"]                   # of what it writes there (default: all)

`{out:DIR}` in a command stands for the committed directory DIR: the command writes into a
scratch directory in its place, and what it writes there (of `keep`) is the derived files of
DIR. Only commands that never run a task may make a derived file (a figure comes from stored
results); a page's block may use `{out:DIR}` too (an `inspect` story and its figure)."""

from __future__ import annotations

import glob
import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

PLAN = "derived.toml"
# memrun commands that read stored results and never start a task program
READERS = ("report", "plot", "inspect", "compare", "derive")
OUT = re.compile(r"\{out:([^}]+)\}")


class PlanError(ValueError):
    """derived.toml or a block's command cannot be used; the message names where."""


@dataclass(frozen=True)
class Job:
    """One memrun command to run: where it was asked for, and which of its files are kept."""

    command: str
    where: str  # "derived.toml:[[make]] 3" or "docs/capacity.md:120"
    keep: tuple[str, ...] = ("*",)

    def argv(self) -> list[str]:
        words = shlex.split(self.command)
        if len(words) < 2 or words[0] != "memrun":
            raise PlanError(f"{self.where}: a command starts with memrun: {self.command}")
        if words[1] not in READERS:
            raise PlanError(
                f"{self.where}: memrun {words[1]} is not a command that only reads stored results "
                f"({', '.join(READERS)}): a derived file comes from the data, never from a run"
            )
        return words[1:]

    def outs(self) -> list[str]:
        """The committed directories it writes into ({out:DIR})."""
        return list(dict.fromkeys(OUT.findall(self.command)))


@dataclass(frozen=True)
class Plan:
    root: Path
    jobs: list[Job] = field(default_factory=list)
    pages: list[Path] = field(default_factory=list)
    derived: list[Path] = field(default_factory=list)  # committed files that must be made


def _globbed(root: Path, patterns: list[str]) -> list[Path]:
    found: list[Path] = []
    for pattern in patterns:
        found += sorted(Path(p).relative_to(root) for p in glob.glob(str(root / pattern), recursive=True))
    return list(dict.fromkeys(found))


def load(root: Path) -> Plan:
    """The plan of the checkout at root. PlanError when there is none or it is malformed."""
    path = root / PLAN
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise PlanError(f"no {PLAN} in {root}: run memrun derive from the checkout's root") from None
    except tomllib.TOMLDecodeError as e:
        raise PlanError(f"{path}: {e}") from None
    jobs = []
    for i, entry in enumerate(data.get("make", []), 1):
        where = f"{PLAN}: [[make]] {i}"
        if not isinstance(entry, dict) or not isinstance(entry.get("run"), str):
            raise PlanError(f'{where}: needs run = "memrun …"')
        keep = entry.get("keep", ["*"])
        if not isinstance(keep, list) or not all(isinstance(k, str) for k in keep):
            raise PlanError(f"{where}: keep is a list of file name patterns")
        job = Job(entry["run"], where, tuple(keep))
        job.argv()
        if not job.outs():
            raise PlanError(f"{where}: writes nowhere: give it an {{out:DIR}}")
        jobs.append(job)
    for key in ("pages", "derived"):
        if not isinstance(data.get(key, []), list):
            raise PlanError(f"{path}: {key} is a list of path patterns")
    return Plan(root, jobs, _globbed(root, data.get("pages", [])), _globbed(root, data.get("derived", [])))
