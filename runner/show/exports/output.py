"""Writing a report to a file (`-o`): checked before the work, replaced in one step after it.

Rendering the HTML report takes seconds; a path that cannot be written should fail before that,
in one line, and a failure half way must not leave a truncated page where a good one was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def check_writable(path: Path) -> None:
    """Raise OSError (with a message naming the path) when `path` cannot be written as a file."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OSError(f"cannot write {path}: it is a directory")
    if not parent.is_dir():
        raise OSError(f"cannot write {path}: no directory {parent}")
    if path.exists() and not os.access(path, os.W_OK):
        raise OSError(f"cannot write {path}: permission denied")
    try:  # the one true test (root passes os.access everywhere, /proc refuses new files anyway)
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise OSError(f"cannot write {path}: {e.strerror}") from None
    os.close(fd)
    os.unlink(tmp)


def write_text(path: Path, text: str) -> None:
    """Write through a temporary file in the same directory, then rename it over `path`."""
    path = Path(path)
    check_writable(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
