"""What a run prints: the moment `ready N` came, and the tails of its other output."""

from __future__ import annotations

import collections
import re
import time
from collections.abc import Callable

READY_RE = re.compile(rb"^ready (\d+)\s*$")
STDERR_TAIL = 40
STDOUT_TAIL = 10


class Output:
    """Fed line by line from the reader threads (one per stream); read by the run's own thread."""

    def __init__(
        self, on_line: Callable[[bytes], None] | None = None, on_err: Callable[[bytes], None] | None = None
    ) -> None:
        self.on_line = on_line  # every stdout line, in order, `ready` among them (the proof attacks)
        self.on_err = on_err  # every stderr line, in order (a books run's)
        self.ready_n: int | None = None
        self.ready_at: float | None = None  # time.monotonic() when the first `ready N` came
        self.stdout_other = 0
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self.stdout_tail: collections.deque[str] = collections.deque(maxlen=STDOUT_TAIL)

    def on_stdout(self, line: bytes) -> None:
        t = time.monotonic()
        if self.on_line is not None:
            self.on_line(line)
        m = READY_RE.match(line)
        if m and self.ready_at is None:
            # n before t: a reader of ready_at then always finds ready_n set
            self.ready_n = int(m.group(1))
            self.ready_at = t
        else:
            self.stdout_other += 1
            self.stdout_tail.append(line.decode("utf-8", "replace").rstrip("\n"))

    def on_stderr(self, line: bytes) -> None:
        if self.on_err is not None:
            self.on_err(line)
        self.stderr_tail.append(line.decode("utf-8", "replace").rstrip("\n"))
