"""Measures: memory of N OS threads (threading.Thread, default stack size) alive at once, each in
time.sleep, all joined."""

import math
import os
import sys
import threading
import time

USAGE = "usage: threads.py N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


# How many threads have reached time.sleep: one global under a lock, nothing per thread.
sleeping = 0
sleeping_lock = threading.Lock()


def sleep(seconds: float) -> None:
    global sleeping
    with sleeping_lock:
        sleeping += 1
    time.sleep(seconds)


# The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
# MEMRUN_TRACE_WAITS=1: each task runs traced_sleep, which writes `start` just before its wait and
# `end` after it, on stdout (os.write: one whole line each), where `ready` goes. MEMRUN_STALL_MS=K:
# main holds the thread K ms (time.sleep: the threads run on) after the last spawn and again just
# before `ready`.
TRACE = os.environ.get("MEMRUN_TRACE_WAITS") == "1"
STALL_S = float(os.environ.get("MEMRUN_STALL_MS") or 0) / 1000


def traced_sleep(seconds: float) -> None:
    os.write(1, b"start\n")
    sleep(seconds)
    os.write(1, b"end\n")


def main(n: int, seconds: float) -> None:
    threads = [None] * n
    for i in range(n):
        t = threading.Thread(target=traced_sleep if TRACE else sleep, args=(seconds,))
        t.start()
        threads[i] = t
    time.sleep(STALL_S)
    # start() returns once the thread runs, not once it sleeps: wait until all N have counted
    # themselves just before time.sleep (reading an int under the GIL needs no lock).
    while sleeping < n:
        time.sleep(0.001)
    time.sleep(STALL_S)
    print(f"ready {n}", flush=True)
    for t in threads:
        t.join()


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
