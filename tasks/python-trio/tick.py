"""Tick workload (tasks/README.md, "Tick protocol"): N trio tasks in one nursery, each with its own
bytes state, waking at absolute due times with trio.sleep_until on trio's clock."""

import math
import sys

import trio

USAGE = ("usage: tick.py N SLEEP_SECONDS STATE_BYTES PERIOD_US"
         "  (N >= 0, STATE_BYTES >= 0, PERIOD_US >= 1; sleep may be fractional)")

INC = bytes((b + 1) & 255 for b in range(256))  # bytes.translate table: every byte + 1 mod 256
CYCLE = bytes(range(1, 252))                     # 1 + x mod 251 for x = 0 .. 250


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


def now_us() -> int:
    """trio's clock in whole µs: trio.current_time(), seconds as a float (trio's SystemClock is
    time.perf_counter(), CLOCK_MONOTONIC, plus a random offset), the clock sleep_until's deadlines
    are on. Due times are kept as integers in µs and handed to sleep_until in seconds."""
    return int(trio.current_time() * 1_000_000)


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


# Shared by the tasks and main (one thread, trio's).
ready_count = 0
all_ready = None   # trio.Event, set by the task whose first wake makes ready_count N
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
        # A deadline already past (a long spawn, a task behind) expires at the loop's next turn. trio
        # never wakes a sleep_until before its deadline on its own clock (it expires deadlines <= its
        # current_time()), but due / 10^6 is a float: a wake within one float step of it can read
        # due - 1 in whole µs. The loop waits again for that (in practice it never turns).
        await trio.sleep_until(due / 1_000_000)
        while now_us() < due:
            await trio.sleep_until(due / 1_000_000)
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


async def main(n: int, sleep_us: int, s: int, p: int) -> None:
    global all_ready, W, E
    t0 = now_us()
    all_ready = trio.Event()
    if n == 0:
        all_ready.set()
    # The nursery owns the tasks (trio gives no per-task handles) and waits for all of them on exit.
    async with trio.open_nursery() as nursery:
        for i in range(n):
            nursery.start_soon(task, i, n, s, p, t0)
        await all_ready.wait()
        t_ready = now_us()
        # W: the first period boundary after t_ready. No task has woken for a due time at or after it
        # (none acts before its due time), so every wake of the window comes after main has set it.
        w = t0 + ((t_ready - t0) // p + 1) * p
        k = max(0, (t_ready + sleep_us - w) // p)
        W = w
        E = w + k * p
        print(f"ready {n}", flush=True)
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
    trio.run(main, *parse(sys.argv[1:]))
