"""Measures: memory of N trio tasks alive at once, each in trio.sleep, started in one nursery."""

import math
import os
import sys
import time

import trio

# trio.testing.wait_all_tasks_blocked is this function, imported from where trio.testing imports it:
# importing trio.testing imports pytest where it is installed (memrun's venv), +10 MB in every run.
from trio._core import wait_all_tasks_blocked

USAGE = "usage: main.py N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"


# The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
# MEMRUN_TRACE_WAITS=1: each task writes `start` just before its wait and `end` just after it, on
# stdout, where `ready` goes. MEMRUN_STALL_MS=K: the loop stalls K ms once main has parked after
# spawning (before the loop checks deadlines), and main again just before `ready`.
TRACE = os.environ.get("MEMRUN_TRACE_WAITS") == "1"
STALL_S = float(os.environ.get("MEMRUN_STALL_MS") or 0) / 1000


async def traced_sleep(seconds: float) -> None:
    os.write(1, b"start\n")
    await trio.sleep(seconds)
    os.write(1, b"end\n")


class Stall(trio.abc.Instrument):
    """Stalls the loop once, right after main's step that spawned the tasks ends (a GC pause or a
    preemption there), before the loop checks deadlines: a main that polled with a short sleep
    would find it expired there, and run in one batch with the N tasks not started yet."""

    def __init__(self) -> None:
        self.main: trio.lowlevel.Task | None = None

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        if task is self.main:
            self.main = None
            time.sleep(STALL_S)


STALL = Stall()


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


async def main(n: int, seconds: float) -> None:
    # The nursery owns the tasks (trio gives no per-task handles) and waits for all of them on exit.
    async with trio.open_nursery() as nursery:
        sleep = traced_sleep if TRACE else trio.sleep
        for _ in range(n):
            nursery.start_soon(sleep, seconds)
        STALL.main = trio.lowlevel.current_task()
        # trio's own "all tasks blocked": main parks until a turn of the loop begins with no task
        # runnable and then sees no deadline expire and no I/O arrive; only then is it woken, alone.
        # The N tasks sit in the run queue until their first step, which runs into trio.sleep and
        # parks there (its deadline registered), so an empty run queue means every one of them has
        # taken that step: all N are in trio.sleep, or already past it. It is the loop that checks,
        # whatever the order it runs a batch in: the check that was here (`tasks_runnable` read by
        # main, polling with a 1 ms sleep) saw 0 whenever main ran first in the batch that held the
        # N unstarted tasks (trio copies its run queue into a batch, reversed half the time), which
        # one stall of 2 ms as the loop checked deadlines made happen: `ready` with none started.
        # A task whose sleep is already over has left and counts too, so `ready` proves N waiting
        # with the runner's rule that it comes before the sleep can end (a state proof).
        await wait_all_tasks_blocked()
        time.sleep(STALL_S)
        print(f"ready {n}", flush=True)


def parse(args: list[str]) -> tuple[int, float]:
    if not 1 <= len(args) <= 2:
        usage("wrong number of arguments")
    if not (args[0].isascii() and args[0].isdigit()):  # rejects "-1", "+1", " 1", "²"
        usage(f"N must be a non-negative integer: {args[0]}")
    seconds = 10.0
    if len(args) == 2:
        try:
            seconds = float(args[1])
        except ValueError:
            seconds = math.nan
        if not 0 <= seconds < math.inf:
            usage(f"SLEEP_SECONDS must be a non-negative number: {args[1]}")
    return int(args[0]), seconds


if __name__ == "__main__":
    trio.run(main, *parse(sys.argv[1:]), instruments=[STALL] if STALL_S else [])
