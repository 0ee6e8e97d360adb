"""One measuring command per machine: a lock held for the whole sweep (and capacity search).

Measurements disturb each other (two sweeps share two cores and the page cache), so a second one
must not start beside the first. An flock is released by the kernel when its holder dies, however
it dies, so a lock is never stale in the kernel's eyes; the holder's description written in the
file tells the next user who holds it, and that a dead holder's lock was taken over.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from runner.state import Owner

# In the shared temporary directory, writable by every user, so that root's and anyone else's
# sweeps exclude each other too (the state directory is root-only).
LOCK_PATH = Path(os.environ.get("MEMRUN_LOCK", Path(tempfile.gettempdir()) / "memrun-measure.lock"))


class Busy(RuntimeError):
    """Another memrun holds the lock; the message names it."""

    def __init__(self, holder: Owner | None) -> None:
        self.holder = holder
        who = holder.describe() if holder else "another memrun (no details in the lock file)"
        super().__init__(
            f"another measurement is running on this machine: memrun {who}; measurements "
            "disturb each other, so wait for it (--wait) or stop it"
        )


def _holder(fd: int) -> Owner | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 65536).decode()
        return Owner.from_dict(json.loads(text)) if text.strip() else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


@contextlib.contextmanager
def measuring(log: Callable[[str], None], wait: bool = False) -> Iterator[None]:
    """Hold the machine-wide lock for the block; Busy at once when held, unless wait.

    MEMRUN_WAIT=1 makes every measurement wait its turn: a test suite run on a machine where a
    long reference sweep is under way queues behind it instead of failing on Busy.
    """
    wait = wait or os.environ.get("MEMRUN_WAIT") == "1"
    fd = os.open(LOCK_PATH, os.O_RDWR | os.O_CREAT, 0o666)
    with contextlib.suppress(OSError):
        os.fchmod(fd, 0o666)  # the umask may have narrowed it; other users need it too
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            if not wait:
                raise Busy(holder) from None
            log(f"waiting for memrun {holder.describe() if holder else '(unknown)'} to finish (--wait)")
            fcntl.flock(fd, fcntl.LOCK_EX)
        previous = _holder(fd)
        if previous and previous.pid != os.getpid() and not previous.alive():
            log(f"took over the measurement lock from memrun {previous.describe()}, which is gone")
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, json.dumps(Owner.me().to_dict()).encode())
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)  # a clean release leaves nothing to take over
    finally:
        os.close(fd)  # releases the flock
