"""Tick workload (tasks/README.md, "Tick protocol"): N asyncio tasks, each with its own bytes state,
waking at absolute due times with asyncio.sleep(due - now), gathered with asyncio.gather, on the uvloop
event loop: tasks/python/tick.py with asyncio.run replaced by uvloop.run, as main.py is made."""

import asyncio
import math
import sys
import time

import uvloop

USAGE = ("usage: tick.py N SLEEP_SECONDS STATE_BYTES PERIOD_US"
         "  (N >= 0, STATE_BYTES >= 0, PERIOD_US >= 1; sleep may be fractional)")

INC = bytes((b + 1) & 255 for b in range(256))  # bytes.translate table: every byte + 1 mod 256
CYCLE = bytes(range(1, 252))                     # 1 + x mod 251 for x = 0 .. 250


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


def now_us() -> int:
    """The monotonic clock in whole µs (CLOCK_MONOTONIC, the clock libuv's timers run on)."""
    return time.monotonic_ns() // 1000


def initial_state(i: int, s: int) -> bytes:
    """S bytes, byte j = 1 + (i*31 + j) mod 251: the 251-byte cycle rotated, repeated, cut."""
    base = i * 31 % 251
    return ((CYCLE[base:] + CYCLE[:base]) * (s // 251 + 1))[:s]


def bucket(v: int) -> int:
    if v < 256:
        return v
    if v > 0xFFFFFFFF:
        v = 0xFFFFFFFF
    m = v.bit_length() - 1
    return 256 + (m - 8) * 128 + (v >> (m - 7)) - 128


# Shared by the tasks and main (one thread, the loop's).
ready_count = 0
all_ready = None   # asyncio.Event, set by the task whose first wake makes ready_count N
W = E = 0          # the window; E = 0: not set yet
achieved = 0
checksum_total = 0
hist = [0] * 3328


async def task(i: int, n: int, s: int, p: int, t0: int) -> None:
    global ready_count, achieved, checksum_total
    state = initial_state(i, s)
    off = i * p // n
    last = 0
    k = 1
    while True:
        due = t0 + off + k * p
        if E and due >= E:
            break
        # A delay <= 0 (a due time already past) makes asyncio.sleep yield once and return. uvloop
        # hands a positive delay to libuv in whole ms (rounded; under 0.5 ms, call_soon), and libuv
        # counts its loop time in whole ms, so a wake can come before the due time: the task then
        # waits again for what is left, rounded up to whole ms as libuv would have it (a re-wait
        # under 0.5 ms would be a call_soon: N = 1,000 re-waited 48,000 times for 6,000 wakes,
        # spinning; rounded up, 1.07 s of CPU instead of 1.84 s at N = 10,000, p50 656 µs, not 392).
        await asyncio.sleep((due - now_us()) / 1e6)
        while (left := due - now_us()) > 0:
            await asyncio.sleep(-(-left // 1000) / 1e3)
        now = now_us()
        late = max(0, now - due)  # never negative: the wait above ends at the due time
        last = sum(state) & 0xFFFFFFFF
        state = state.translate(INC)
        if k == 1:
            ready_count += 1
            if ready_count == n:
                all_ready.set()
        if E:
            if W <= due < E:
                hist[bucket(late)] += 1
                if now < E:
                    achieved += 1
            if now >= E:
                break
        k += 1
    checksum_total = (checksum_total + last) & 0xFFFFFFFF


async def main(n: int, sleep_us: int, s: int, p: int, t0: int) -> None:
    global all_ready, W, E
    all_ready = asyncio.Event()
    if n == 0:
        all_ready.set()
    tasks = [None] * n
    for i in range(n):
        tasks[i] = asyncio.create_task(task(i, n, s, p, t0))
    all_done = asyncio.gather(*tasks)
    await all_ready.wait()
    t_ready = now_us()
    # W: the first period boundary after t_ready. No task has woken for a due time at or after it
    # (none acts before its due time), so every wake of the window comes after main has set it.
    w = t0 + ((t_ready - t0) // p + 1) * p
    k = max(0, (t_ready + sleep_us - w) // p)
    W = w
    E = w + k * p
    print(f"ready {n}", flush=True)
    await all_done
    print(f"tick periods {k} asked {n * k} achieved {achieved} checksum {checksum_total}")
    print("lateness_us" + "".join(f" {b}:{c}" for b, c in enumerate(hist) if c), flush=True)


def parse(args: list) -> tuple:
    if len(args) != 4:
        usage("wrong number of arguments")
    for what, text in (("N", args[0]), ("STATE_BYTES", args[2]), ("PERIOD_US", args[3])):
        if not (text.isascii() and text.isdigit()):  # rejects "-1", "+1", " 1", "²"
            usage(f"{what} must be a non-negative integer: {text}")
    try:
        seconds = float(args[1])
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds < math.inf:
        usage(f"SLEEP_SECONDS must be a non-negative number: {args[1]}")
    if int(args[3]) < 1:
        usage(f"PERIOD_US must be at least 1: {args[3]}")
    return int(args[0]), round(seconds * 1e6), int(args[2]), int(args[3])


if __name__ == "__main__":
    n, sleep_us, s, p = parse(sys.argv[1:])
    uvloop.run(main(n, sleep_us, s, p, now_us()))
