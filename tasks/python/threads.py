"""Measures: memory of N OS threads (threading.Thread, default stack size) alive at once, each in
time.sleep, all joined."""

import math
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


def main(n: int, seconds: float) -> None:
    threads = [None] * n
    for i in range(n):
        t = threading.Thread(target=sleep, args=(seconds,))
        t.start()
        threads[i] = t
    # start() returns once the thread runs, not once it sleeps: wait until all N have counted
    # themselves just before time.sleep (reading an int under the GIL needs no lock).
    while sleeping < n:
        time.sleep(0.001)
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
