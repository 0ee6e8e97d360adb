"""Measures: memory of N asyncio tasks alive at once on the uvloop event loop, each awaiting asyncio.sleep."""

import asyncio
import math
import os
import sys
import time

import uvloop

USAGE = "usage: main.py N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


# The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
# MEMRUN_TRACE_WAITS=1: each task runs traced_sleep, which writes `start` just before its wait and
# `end` after it, on stdout (os.write: one whole line each), where `ready` goes. MEMRUN_STALL_MS=K:
# main holds the thread K ms (time.sleep: the event loop does not run) after the last spawn and
# again just before `ready`.
TRACE = os.environ.get("MEMRUN_TRACE_WAITS") == "1"
STALL_S = float(os.environ.get("MEMRUN_STALL_MS") or 0) / 1000


async def traced_sleep(seconds: float) -> None:
    os.write(1, b"start\n")
    await asyncio.sleep(seconds)
    os.write(1, b"end\n")


async def main(n: int, seconds: float) -> None:
    tasks = [None] * n
    sleep = traced_sleep if TRACE else asyncio.sleep
    for i in range(n):
        tasks[i] = asyncio.create_task(sleep(seconds))
    # Gathered before `ready`: gather gives each task a done callback (and a copy of the context),
    # part of what the N waiting tasks cost.
    all_done = asyncio.gather(*tasks)
    time.sleep(STALL_S)
    # One yield proves all N are waiting: the N tasks' first steps were queued before main's own
    # resumption and the loop runs its ready callbacks FIFO, so each task has run into asyncio.sleep
    # (its timer registered) by the time main resumes (uvloop's Loop._on_idle runs its ready deque
    # FIFO, as asyncio's own loop does). And none has ended: the timers are libuv's, which runs due
    # timers at the start of its next turn, after this pass over the ready deque. Self-contained.
    await asyncio.sleep(0)
    time.sleep(STALL_S)
    print(f"ready {n}", flush=True)
    await all_done


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
    uvloop.run(main(*parse(sys.argv[1:])))
