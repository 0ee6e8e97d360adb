"""Measures: memory of N gevent greenlets alive at once, each in gevent.sleep, joined with gevent.joinall."""

import math
import os
import sys
import time

import gevent

USAGE = "usage: main.py N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


# The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
# MEMRUN_TRACE_WAITS=1: each task runs traced_sleep, which writes `start` just before its wait and
# `end` after it, on stdout (os.write: one whole line each), where `ready` goes. MEMRUN_STALL_MS=K:
# main holds the thread K ms (time.sleep: not patched by gevent here, so the hub does not run) after
# the last spawn and again just before `ready`.
TRACE = os.environ.get("MEMRUN_TRACE_WAITS") == "1"
STALL_S = float(os.environ.get("MEMRUN_STALL_MS") or 0) / 1000


def traced_sleep(seconds: float) -> None:
    os.write(1, b"start\n")
    gevent.sleep(seconds)
    os.write(1, b"end\n")


def main(n: int, seconds: float) -> None:
    greenlets = [None] * n
    sleep = traced_sleep if TRACE else gevent.sleep
    for i in range(n):
        greenlets[i] = gevent.spawn(sleep, seconds)
    time.sleep(STALL_S)
    # One yield proves all N have started their wait: spawn queues each greenlet's start as a hub
    # callback and the hub runs its callbacks FIFO, so main's own wake-up, queued last by sleep(0),
    # comes after every greenlet has run into gevent.sleep (its timer started, its stack slice
    # saved). Not that none has ended: the hub runs its loop (and due timers) between callbacks once
    # its switch interval has passed, so with a sleep of 2 ms most greenlets were over at `ready`.
    # It proves N waiting with the runner's rule that `ready` comes before the sleep can end.
    gevent.sleep(0)
    time.sleep(STALL_S)
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
