"""Every sleep program's `ready` proof, attacked (tasks/README.md, "Attacking the proofs").

Each program runs for real at N = 1,000 under the trace switch, with a stall of 2 ms after the
last spawn and another just before `ready` (where each program's comment says), RUNS times with a
sleep of 2 ms, which runs out while the tasks are still being spawned, and once with a sleep long
enough for the run to be judged valid (again with a longer one, where the spawn outlasted it).
The trace's lines before `ready` are the ground truth, and each proof must hold:
- in every run the runner judged valid: N `start` lines and no `end` line before `ready` (N tasks
  waiting), whatever the proof;
- a self-contained proof, in every run: N `start` lines and no `end` line (no wait can end before
  `ready`, however short the sleep);
- a counter, in every run: N `start` lines (it counts the tasks that reached their wait);
- a state, in every run where no wait had ended before `ready`: N `start` lines (the state it reads
  shows every task in its wait while none has left it; once some have, only the rule holds it).
"""

from __future__ import annotations

import pytest

from runner.tasks.proof import KINDS
from tests.support.attack import Attacked, attack, attackable, build_usable
from tests.support.process import require

N = 1000
TINY = 0.002  # s: ends while the tasks are still being spawned
STALL_MS = 2
RUNS = 6
# The sleep of the run that must be judged valid: three times the slowest `ready` of the tiny runs
# (at least MIN_VALID_SLEEP), so that no program, fast or slow to start, waits longer than it needs.
MIN_VALID_SLEEP = 0.5
# A run whose spawning outlasted that sleep (judged so: the runner saw it) is run again with twice
# the sleep, up to this many times: the spawn's time is the machine's (a CI run's java-threads took
# 2.6 s to spawn what its tiny runs had ready in 0.8 s), not the proof's.
LONGER_TRIES = 2

VARIANTS = attackable()


@pytest.fixture(scope="module")
def built() -> dict[str, str]:
    return build_usable(VARIANTS)


def test_every_program_states_a_proof():
    assert all(v.proof is not None and v.proof.kind in KINDS for v in VARIANTS.values())
    assert "node@before-16" in VARIANTS  # the version axis's own program (legacy.cjs)


def _judge(name: str, runs: list[Attacked]) -> list[str]:
    """What is wrong with the attacked runs of one program, if anything."""
    proof = VARIANTS[name].proof
    assert proof is not None
    wrong = []
    for i, run in enumerate(runs):
        where = f"run {i + 1} ({run.line()})"
        missing = f"`ready` came with {N - run.started} of {N} tasks not yet in their wait"
        if not run.ready or run.exit_code != 0:
            wrong.append(f"{where}: the program did not run through: {run.stderr[-3:]}")
        elif run.verdict.valid and (run.started < N or run.ended):
            wrong.append(f"{where}: judged valid with {run.waiting} of {N} tasks waiting at `ready`")
        elif proof.kind == "self-contained" and run.ended:
            wrong.append(f"{where}: a self-contained proof, yet {run.ended} waits ended before `ready`")
        elif run.started < N and (proof.kind == "counter" or not run.ended):
            wrong.append(f"{where}: {missing}")
    return wrong


@pytest.mark.serial
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_ready_proof_holds_under_attack(name, built):
    require(name not in built, f"{name}: {built.get(name)}")
    variant = VARIANTS[name]
    runs = [attack(variant, N, TINY, STALL_MS) for _ in range(RUNS)]
    sleep = max(MIN_VALID_SLEEP, 3 * max(r.ready_s or 0 for r in runs))
    runs.append(attack(variant, N, sleep, STALL_MS))
    for _ in range(LONGER_TRIES):  # as `--sleep auto` does, and every run is still judged
        if runs[-1].verdict.code != "spawn-outlasted-sleep":
            break
        sleep *= 2
        runs.append(attack(variant, N, sleep, STALL_MS))
    wrong = _judge(name, runs)
    assert not wrong, f"{name} ({variant.proof.label if variant.proof else '?'}): " + "; ".join(wrong)
    assert runs[-1].verdict.valid, f"the {sleep:.2f} s run was not judged valid: {runs[-1].line()}"
