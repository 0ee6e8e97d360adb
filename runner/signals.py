"""SIGTERM handled like Ctrl-C, in one place.

A `kill` of memrun must end a sweep the way Ctrl-C does: the run in progress is killed, its rows
are kept, raised kernel limits are put back. Raising a KeyboardInterrupt subclass from the handler
lets every `except KeyboardInterrupt` and `finally` on the way out do that work.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM as an exception."""


def _raise_terminated(signum: int, _frame: object) -> None:
    raise Terminated(f"signal {signum}")


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Make SIGTERM raise Terminated in the block, unless a caller already installed a handler."""
    if callable(signal.getsignal(signal.SIGTERM)):
        yield
        return
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not the main thread: signals cannot be handled here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
