"""Attacking a sleep program's `ready` proof (tasks/README.md, "Attacking the proofs").

A run under runner.tasks.proof's switches writes, besides `ready N`, one `start` line per task
just before its wait and one `end` line just after it, on the same stdout: the order in which
the lines arrive is the order in which they were written, so counting the lines before `ready`
says how many tasks had reached their wait, and how many had left it, when `ready` was written.
The run itself goes through the runner's own executor and judge, so "judged valid" here is what a
sweep would have judged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from runner import tasks
from runner.execute import Settings, execute
from runner.judge.verdict import Verdict
from runner.measure import RunSpec
from runner.tasks.proof import STALL_ENV, TRACE_ENV


@dataclass(frozen=True)
class Attacked:
    """One attacked run: the runner's verdict, and the trace's ground truth at `ready`."""

    verdict: Verdict
    ready: bool  # a `ready N` line came
    ready_s: float | None  # when, after the fork (as the runner judges it)
    started: int  # tasks that had written `start` (reached their wait) before `ready`
    ended: int  # tasks that had written `end` (left their wait) before `ready`
    exit_code: int | None
    stderr: list[str]

    @property
    def waiting(self) -> int:
        return self.started - self.ended

    def line(self) -> str:
        return (
            f"{'ready' if self.ready else 'no ready'}: {self.started} started, {self.ended} ended, "
            f"judged {self.verdict.verdict} ({self.verdict.code})"
        )


def count(lines: list[bytes]) -> tuple[bool, int, int]:
    """(ready came, `start` lines before it, `end` lines before it)."""
    started = ended = 0
    for line in lines:
        word = line.strip()
        if word.startswith(b"ready"):
            return True, started, ended
        started += word == b"start"
        ended += word == b"end"
    return False, started, ended


def attack(variant: tasks.Variant, n: int, sleep: float, stall_ms: int) -> Attacked:
    """One run of the variant's program at N with the trace on and a stall of stall_ms."""
    lines: list[bytes] = []
    spec = RunSpec(timeout=60, on_line=lines.append)
    ran = execute(variant, n, sleep, Settings(spec, env_override={TRACE_ENV: "1", STALL_ENV: str(stall_ms)}))
    ready, started, ended = count(lines)
    r = ran.result
    return Attacked(ran.judged, ready, r.ready_s, started, ended, r.exit_code, r.stderr_tail)


def attackable() -> dict[str, tasks.Variant]:
    """Every sleep program: each variant, and each program a version table puts in place of a
    variant's (`[[versions.NAME.before]]` with a `run`: Node's legacy.cjs), run here with the
    installed runtime, named VARIANT@before-VERSION."""
    out = dict(tasks.load_all())
    for tf in tasks.folders(list(out.values())):
        for spec in tf.versions.values():
            for before in spec.before:
                if before.run is None:
                    continue
                for v in tf.variants:
                    if spec.applies_to(v.name):
                        name = f"{v.name}@before-{before.version}"
                        out[name] = dataclasses.replace(v, name=name, run=before.run, proof=before.proof)
    return out


def build_usable(variants: dict[str, tasks.Variant]) -> dict[str, str]:
    """Build each folder once; the variants that cannot run, and why."""
    problems: dict[str, str] = {}
    for tf in tasks.folders(list(variants.values())):
        r = tasks.readiness(tf.variants[0])
        why = "; ".join(r.problems) if not r.usable else None
        if why is None:
            try:
                tasks.build(tf.variants[0])
            except tasks.BuildError as e:
                why = str(e)
        if why is not None:
            problems.update({v.name: why for v in variants.values() if v.folder.name == tf.name})
    return problems
