"""What a sleep program's `ready N` proves, as its manifest declares it (`[variant.proof]`).

Every task program prints `ready N` once, it says, all N tasks are in their wait (tasks/README.md,
"Program protocol"). How it knows differs, and so does what the line proves on its own:

- **self-contained**: no wait can end before `ready` is written: the line comes in the same
  step that registered the last timer, on the thread that would run the waits' ends (an event
  loop that runs nothing else until the step is over). The line alone proves N waiting.
- **counter**: a count of the tasks that reached their wait, bumped just before it. It also
  counts tasks whose wait is already over.
- **state**: the runtime's own state or order (a thread's state, a scheduler's queue) shows every
  task in its wait, or already past it.

A counter or a state proves N tasks *waiting* only with the runner's rule that `ready` must come
before the sleep can end (runner.judge.rules.spawn_outlasted_sleep): every wait began after the
fork and lasts the sleep, so none has ended then. A self-contained proof needs no rule.

The proofs are attacked by tests (tests/integration/test_proof_attacks.py) through two switches
every sleep program honours, which measured runs never get (`scrubbed`): TRACE_ENV makes each
task write `start` on stdout just before its wait and `end` just after it, on the stream `ready`
is on, so the order of the lines is the ground truth; STALL_ENV makes the program stall between
spawning and `ready`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# The kinds, and whether each needs the runner's rule (`ready` before the sleep can end).
KINDS = {"self-contained": False, "counter": True, "state": True}
TRACE_ENV = "MEMRUN_TRACE_WAITS"  # "1": each task writes `start` / `end` around its wait
STALL_ENV = "MEMRUN_STALL_MS"  # K: the program stalls K ms between spawning and `ready`
ATTACK_ENV = (TRACE_ENV, STALL_ENV)


class ProofError(ValueError):
    """A proof table is wrong; the message names the key (the caller adds the file)."""


@dataclass(frozen=True)
class Proof:
    """A program's `ready` proof: its kind (KINDS) and one line saying how it holds."""

    kind: str
    how: str

    @property
    def needs_rule(self) -> bool:
        """Whether `ready` proves N waiting only when it came before the sleep could end."""
        return KINDS[self.kind]

    @property
    def label(self) -> str:
        """The kind as a table shows it: "self-contained", "counter + rule", "state + rule"."""
        return f"{self.kind} + rule" if self.needs_rule else self.kind

    def says(self, ready_s: float | None = None, sleep_s: float | None = None) -> str:
        """One line for a run's story: the kind, how it holds, and whether the rule was met."""
        return f"{told(self.kind, ready_s, sleep_s)} ({self.how})"


def told(kind: str, ready_s: float | None = None, sleep_s: float | None = None) -> str:
    """What a run's `ready` proved, from its program's kind (stored in the run's record as `proof`),
    and, for a kind that needs the rule, whether the run met it (`ready` by the sleep's end)."""
    if kind not in KINDS:
        return f"{kind} (a kind this memrun does not know)"
    if not KINDS[kind]:
        return "self-contained: no wait could end before `ready`, whenever it came"
    head = f"{kind}: proves N waiting only with `ready` before the sleep's end"
    if ready_s is None or not sleep_s:
        return head
    if ready_s <= sleep_s:
        return f"{head}, which it was ({ready_s:.2f} s ≤ {sleep_s:g} s)"
    return f"{head}, which it was not ({ready_s:.2f} s > {sleep_s:g} s): some waits may have ended"


def read(value: object, where: str) -> Proof:
    """A `proof` table: {kind = one of KINDS, how = one line}. ProofError names what is wrong."""
    if not isinstance(value, Mapping):
        raise ProofError(f"{where} must be a table with kind and how")
    if unknown := set(value) - {"kind", "how"}:
        raise ProofError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    kind, how = value.get("kind"), value.get("how")
    if kind not in KINDS:
        raise ProofError(f"{where}.kind must be one of {', '.join(KINDS)}")
    if not isinstance(how, str) or not how.strip():
        raise ProofError(f"{where}.how is required: one line saying how `ready` proves it")
    return Proof(str(kind), " ".join(how.split()))


def scrubbed(environ: Mapping[str, str]) -> dict[str, str]:
    """memrun's environment as a measured run inherits it: without the attack switches, which
    would change what the program does (a user's shell may have them set)."""
    return {k: v for k, v in environ.items() if k not in ATTACK_ENV}


def check_env(names: Mapping[str, str] | list[str], where: str) -> None:
    """Refuse the attack switches where a user gives a run's environment (`sweep --env`): a run
    that traces its tasks or stalls on purpose is no figure. ValueError names the switch."""
    for name in names:
        if name in ATTACK_ENV:
            raise ValueError(
                f"{where}: {name} is the proof attack's switch (tasks/README.md): "
                "a run under it is not a figure"
            )
