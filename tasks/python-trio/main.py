"""Measures: memory of N trio tasks alive at once, each in trio.sleep, started in one nursery."""

import math
import os
import sys
import time

import trio

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
    preemption there): the loop then checks deadlines with main's own sleep already expired."""

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
        # trio's own state proves all N are waiting: a task is runnable until its first step blocks
        # it in trio.sleep, so none runnable while main runs means all N are asleep. Not
        # trio.testing.wait_all_tasks_blocked, the same test: importing trio.testing imports pytest
        # where it is installed (memrun's venv), +10 MB.
        while trio.lowlevel.current_statistics().tasks_runnable:
            await trio.sleep(0.001)
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
