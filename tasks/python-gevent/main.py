"""Measures: memory of N gevent greenlets alive at once, each in gevent.sleep, joined with gevent.joinall."""

import math
import sys

import gevent

USAGE = "usage: main.py N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


def main(n: int, seconds: float) -> None:
    greenlets = [None] * n
    for i in range(n):
        greenlets[i] = gevent.spawn(gevent.sleep, seconds)
    # One yield proves all N are waiting: spawn queues each greenlet's start as a hub callback and
    # the hub runs its callbacks FIFO, so main's own wake-up, queued last by sleep(0), comes after
    # every greenlet has run into gevent.sleep (its timer started, its stack slice saved).
    gevent.sleep(0)
    print(f"ready {n}", flush=True)
    gevent.joinall(greenlets, raise_error=True)


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
    main(*parse(sys.argv[1:]))
