"""Probe: a thread-per-task program that fails in a known way, for the timeline diagnosis.

Usage:
  threads.py plateau COUNT   start COUNT sleeping threads over about half a second (after 0.2 s, so
                             that the first samples see one thread), then wait (no `ready`): a
                             plateau at COUNT + 1 threads, as if a limit had stopped it
  threads.py slowdown STEP   start sleeping threads without end, waiting STEP * i seconds before
                             the i-th: creation slows down the longer it runs (no `ready`)
  threads.py spin SECONDS    burn CPU in user code for SECONDS, print `ready 1`, exit 0.5 s later
Every thread sleeps an hour; the caller's timeout ends the program.
"""

import sys
import threading
import time


def sleeper() -> None:
    time.sleep(3600)


def start() -> None:
    threading.Thread(target=sleeper, daemon=True).start()


mode, value = sys.argv[1], float(sys.argv[2])
if mode == "plateau":
    time.sleep(0.2)
    for _ in range(int(value)):
        start()
        time.sleep(0.5 / value)
    time.sleep(3600)
elif mode == "slowdown":
    i = 0
    while True:
        start()
        i += 1
        time.sleep(value * i)
elif mode == "spin":
    end = time.process_time() + value
    while time.process_time() < end:  # the clock is a system call: read it rarely
        for _ in range(100_000):
            pass
    print("ready 1", flush=True)
    time.sleep(0.5)  # so that the last samples see all of that CPU time
else:
    sys.exit(f"unknown mode {mode}")
