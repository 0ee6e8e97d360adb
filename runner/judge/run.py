"""What a verdict is, and what every rule reads of a run: the vocabulary of codes, the Verdict, the
run with its N, sleep, limits and manifest failures (computed once), and the line of stderr that
says what went wrong."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from runner.limits.host import Limits
from runner.measure.result import RunResult
from runner.tasks.manifest import Failure
from runner.tasks.template import TemplateError, expand
from runner.workload import DEFAULT, Workload, get

# The vocabulary of verdict codes, one place; manifests may add their own runtime-limit codes.
CODES = {
    "ok": "valid: `ready N` in time, exit 0",
    "not-started": "the program could not be started",
    "toolchain-missing": "a tool the variant needs is not installed",
    "build-failed": "the build failed",
    "interrupted": "stopped by the user",
    "timeout": "killed at the timeout",
    "thread-limit": "the OS refused a thread: a kernel or process limit (named in the reason)",
    "fd-limit": "out of file descriptors: the run's RLIMIT_NOFILE (EMFILE) or fs.file-max (ENFILE)",
    "out-of-memory": "killed by the OOM killer or the runtime said it ran out of memory",
    "does-not-fit": "not run: what N needs (from earlier runs) is more than the memory cap",
    "signal": "killed by a signal",
    "exit": "exited non-zero",
    "no-ready": "exit 0 without a `ready N` line",
    "ready-mismatch": "`ready M` with M different from N",
    "spawn-outlasted-sleep": "the N tasks were never all alive at once",
    "ended-before-sleep": "the run ended before its sleep could: its tasks did not wait",
    "exit-stalled": "stopped where its threads stopped ending after the sleep (a capacity probe: it fit)",
}

# stderr lines that are not the message: stack frames, backtrace headers, hints
NOISE = re.compile(r"^\s|^note:|^stack backtrace:|^\[0x[0-9a-f]+\]|^$")  # [0x…]: a frame address


@dataclass(frozen=True)
class Verdict:
    """Whether one run's figure can be published, and if not, why and what to do."""

    verdict: Literal["valid", "invalid", "failed"]
    code: str  # short machine code, e.g. "thread-limit"
    reason: str  # one line
    remedy: str | None  # one line, or None
    # A valid run: whether its own timing proves the N waits overlapped (wall < 2 x sleep,
    # runner.judge.overlap), or the figure rests on the program's `ready` proof alone (False).
    overlap_by_timing: bool | None = None

    @property
    def valid(self) -> bool:
        return self.verdict == "valid"


@dataclass(frozen=True)
class _Run:
    """What every rule needs, computed once."""

    result: RunResult
    n: int
    sleep_s: float
    per_task: dict
    limits: Limits
    failures: Sequence[Failure] = field(default_factory=tuple)
    workload: Workload = field(default_factory=lambda: get(DEFAULT))  # the one the run ran

    @property
    def stderr(self) -> str:
        """The program's messages: stderr, plus stray stdout (the JVM warns there)."""
        return "\n".join([*self.result.stderr_tail, *self.result.stdout_tail])

    @property
    def threads(self) -> int:
        """Most threads seen: the figure that tells which limit stopped the run."""
        timeline = max((s.threads for s in self.result.timeline), default=0)
        return max(self.result.threads_max, timeline)

    def matched(self, means: str) -> Failure | None:
        """The first manifest failure pattern with this meaning that the program's messages show."""
        text = self.stderr
        return next((f for f in self.failures if f.means == means and f.pattern.search(text)), None)

    def fill(self, template: str | None) -> str | None:
        """A manifest reason or remedy with {n}, {sleep}, {threads}, {message} and arithmetic filled."""
        if template is None:
            return None
        values = {
            "n": str(self.n),
            "sleep": f"{self.sleep_s:g}",
            "threads": f"{self.threads:,}",
            "message": message_line(self.result.stderr_tail) or message_line(self.result.stdout_tail),
        }
        try:
            return expand(template, values)
        except TemplateError:
            return template


def message_line(stderr_tail: list[str]) -> str:
    """The line of stderr that says what went wrong, skipping stack frames and hints.

    Rust ends with "note: ... RUST_BACKTRACE", Java and Elixir with stack frames; the message is
    the last line that is neither.
    """
    for line in reversed(stderr_tail):
        if not NOISE.match(line):
            return line.strip()[:200]
    return next((line.strip()[:200] for line in reversed(stderr_tail) if line.strip()), "")
