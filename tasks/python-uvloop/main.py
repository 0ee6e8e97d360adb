"""Measures: memory of N asyncio tasks alive at once on the uvloop event loop, each awaiting asyncio.sleep."""

import asyncio
import math
import sys

import uvloop

USAGE = "usage: main.py N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


async def main(n: int, seconds: float) -> None:
    tasks = [None] * n
    for i in range(n):
        tasks[i] = asyncio.create_task(asyncio.sleep(seconds))
    # Gathered before `ready`: gather gives each task a done callback (and a copy of the context),
    # part of what the N waiting tasks cost.
    all_done = asyncio.gather(*tasks)
    # One yield proves all N are waiting: the N tasks' first steps were queued before main's own
    # resumption and the loop runs its ready callbacks FIFO, so each task has run into asyncio.sleep
    # (its timer registered) by the time main resumes (uvloop's Loop._on_idle runs its ready deque
    # FIFO, as asyncio's own loop does).
    await asyncio.sleep(0)
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
