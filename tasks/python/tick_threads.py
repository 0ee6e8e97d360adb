"""Tick workload (tasks/README.md, "Tick protocol"): one threading.Thread per task, each with its own
bytes state, waking at absolute due times with time.sleep(due - now), all joined."""

import math
import sys
import threading
import time

USAGE = ("usage: tick_threads.py N SLEEP_SECONDS STATE_BYTES PERIOD_US"
         "  (N >= 0, STATE_BYTES >= 0, PERIOD_US >= 1; sleep may be fractional)")

INC = bytes((b + 1) & 255 for b in range(256))  # bytes.translate table: every byte + 1 mod 256
CYCLE = bytes(range(1, 252))                     # 1 + x mod 251 for x = 0 .. 250


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


def now_us() -> int:
    """The monotonic clock in whole µs (CLOCK_MONOTONIC)."""
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


# Shared by the threads and main. Every update is under `lock` (a += on a global or a list item is
# several bytecodes, which the GIL may split); W and E are set by main, W first, and only read.
lock = threading.Lock()
ready_count = 0
W = E = 0          # the window; E = 0: not set yet
achieved = 0
checksum_total = 0
hist = [0] * 3328  # one histogram for all threads, under the lock: nothing per thread


def task(i: int, n: int, s: int, p: int, t0: int) -> None:
    global ready_count, achieved, checksum_total
    state = initial_state(i, s)
    off = i * p // n
    last = 0
    k = 1
    while True:
        due = t0 + off + k * p
        if E and due >= E:
            break
        wait = due - now_us()
        if wait > 0:  # a due time already past (a long spawn, a thread behind): no sleep
            time.sleep(wait / 1e6)
        now = now_us()
        late = now - due if now > due else 0
        last = sum(state) & 0xFFFFFFFF
        state = state.translate(INC)
        if k == 1:
            with lock:
                ready_count += 1
        if E:
            if W <= due < E:
                b = bucket(late)
                with lock:
                    hist[b] += 1
                    if now < E:
                        achieved += 1
            if now >= E:
                break
        k += 1
    with lock:
        checksum_total = (checksum_total + last) & 0xFFFFFFFF


def main(n: int, sleep_us: int, s: int, p: int, t0: int) -> None:
    global W, E
    threads = [None] * n
    for i in range(n):
        t = threading.Thread(target=task, args=(i, n, s, p, t0))
        t.start()
        threads[i] = t
    # Wait until every thread has done its first wake's work (reading an int under the GIL needs
    # no lock), as threads.py waits for its sleepers.
    while ready_count < n:
        time.sleep(0.001)
    t_ready = now_us()
    w = t0 + ((t_ready - t0) // p + 1) * p
    k = max(0, (t_ready + sleep_us - w) // p)
    W = w
    E = w + k * p
    print(f"ready {n}", flush=True)
    for t in threads:
        t.join()
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
    main(n, sleep_us, s, p, now_us())
