"""Making every derived file and block again, and writing them or naming what differs.

Each command (a [[make]] of derived.toml, or a page's block) is made by the library functions
the command calls (runner.derive.commands: the command line is not run), in a process forked for
it alone (runner.derive.forking), so the commands run side by side and none sees another's state
(matplotlib's, a cache); each writes into scratch directories that stand in for the committed
ones. Before forking, this process imports what the commands use and reads once the results
directories their arguments name (warm): ~300 commands read the same few directories, and each
child inherits them instead of reading them again. Then either the made
files and refreshed pages replace the committed ones where they differ (`memrun derive`), or
nothing is written and every difference is named (`--check`): a file that differs or is
missing, a page whose block no longer says what its command says, and a committed file that
derived.toml says is derived but that no command makes.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from runner.derive import blocks as markers
from runner.derive.commands import CommandError, output
from runner.derive.forking import each_forked
from runner.derive.plan import OUT, Job, PlanError, load


class DeriveError(ValueError):
    """A command of the plan or of a block failed; the message names it and says why."""


@dataclass
class Made:
    """What one command made: its files (committed path -> the file in scratch) and its output."""

    job: Job
    files: dict[Path, Path] = field(default_factory=dict)
    text: str = ""


@dataclass
class Outcome:
    """What `derive` found: the files and pages that differed (and were written, unless checking),
    and the committed files that no command makes."""

    stale: list[str] = field(default_factory=list)  # "path: why" for each difference
    orphans: list[Path] = field(default_factory=list)  # committed as derived, made by no command
    written: list[Path] = field(default_factory=list)
    made: int = 0  # files and pages made in all

    @property
    def fresh(self) -> bool:
        return not self.stale and not self.orphans


def _run(job: Job, scratch: Path) -> Made:
    """Make one command's output and files (runner.derive.commands) with scratch directories in
    place of its {out:DIR}; keep what it wrote."""
    dirs = {d: scratch / d for d in job.outs()}
    for place in dirs.values():
        place.mkdir(parents=True, exist_ok=True)
    argv = [OUT.sub(lambda m: str(dirs[m.group(1)]), word) for word in job.argv()]
    try:
        out = output(argv)
    except CommandError as e:
        raise DeriveError(f"{job.where}: `{job.command}` failed: {e}") from None
    made = Made(job)
    for committed, place in dirs.items():
        out = out.replace(str(place), committed.rstrip("/"))
        for path in sorted(place.rglob("*")):
            relative = path.relative_to(place).as_posix()
            if path.is_file() and any(fnmatch.fnmatch(relative, k) for k in job.keep):
                made.files[Path(committed) / relative] = path
    made.text = out
    return made


def _jobs(plan_jobs: list[Job], pages: dict[Path, str]) -> tuple[list[Job], dict[Path, list[markers.Block]]]:
    """The plan's commands and each page's blocks' (one job per distinct block command)."""
    found = {page: markers.blocks(text, str(page)) for page, text in pages.items()}
    jobs = list(plan_jobs)
    seen = {j.command for j in jobs}
    for page_blocks in found.values():
        for b in page_blocks:
            b.argv  # noqa: B018  (a command that does not start with memrun is refused here)
            if b.command not in seen:
                seen.add(b.command)
                jobs.append(Job(b.command, f"{b.page}:{b.line}"))
    return jobs, found


def warm(jobs: list[Job]) -> None:
    """Import here what the commands use, and read the results directories their arguments name,
    so that every forked command has them already. Only imports and reads: no command runs here,
    and a directory that cannot be read is left for its command to say why."""
    import importlib

    from runner.derive import readers, stored

    for module in readers.USES:  # the library the commands call (matplotlib, set to draw files)
        importlib.import_module(module)
    for directory in sorted({d for job in jobs for d in stored.directories(job.argv())}):
        stored.warm(directory)


def run_all(jobs: list[Job], scratch: Path, workers: int) -> list[Made]:
    """Every job, `workers` at a time, each in a process forked for it alone from this one once
    warmed; the first failure raises."""
    for job in jobs:
        job.argv()  # refuse a command that runs tasks before anything starts
    warm(jobs)
    calls = [functools.partial(_run, job, scratch / f"job-{i}") for i, job in enumerate(jobs)]
    return each_forked(calls, scratch / "results", workers)


def regenerate(root: Path, check: bool = False, workers: int | None = None) -> Outcome:
    """Make everything derived.toml and the pages' blocks ask for, from the checkout at root;
    write what differs, or (check) only name it. PlanError or BlockError for a plan or marker
    that cannot be used, DeriveError for a command that failed."""
    plan = load(root)
    pages = {page: (root / page).read_text() for page in plan.pages}
    jobs, found = _jobs(plan.jobs, pages)
    outcome = Outcome()
    with tempfile.TemporaryDirectory(prefix="memrun-derive-") as scratch:
        made = run_all(jobs, Path(scratch), workers or os.cpu_count() or 1)
        files: dict[Path, Path] = {}
        for m in made:
            for committed, path in m.files.items():
                if committed in files and files[committed].read_bytes() != path.read_bytes():
                    raise PlanError(f"{committed}: made by two commands, differently ({m.job.where})")
                files[committed] = path
        outputs = {m.job.command: m.text for m in made}
        for committed, path in sorted(files.items()):
            _settle(root / committed, path.read_bytes(), str(committed), check, outcome)
        for page, text in pages.items():
            new = markers.filled(text, found[page], outputs)
            if new != text:
                stale = [b for b in found[page] if b.body(outputs[b.command]) != text[b.start : b.end]]
                where = ", ".join(f"line {b.line} (`{b.command}`)" for b in stale)
                _settle(root / page, new.encode(), f"{page}: {where}", check, outcome)
        outcome.made = len(files) + len(pages)
    outcome.orphans = [committed for committed in plan.derived if committed not in files]
    return outcome


def _settle(path: Path, data: bytes, what: str, check: bool, outcome: Outcome) -> None:
    """Compare a made file with the committed one; write it over when not checking."""
    try:
        same = path.read_bytes() == data
    except FileNotFoundError:
        outcome.stale.append(f"{what}: not committed")
        same = False
    else:
        if not same:
            outcome.stale.append(f"{what}: differs")
    if not same and not check:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.derive")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        outcome.written.append(path)
