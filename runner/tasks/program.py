"""Which program a run ran: a digest of its task folder's files.

A capacity pools every stored run of one boundary (runner.capacity.evidence), and a run of an
edited program (a new `ready` proof, another flag in its manifest) is not evidence about the
program as it is now. The digest covers every file of the folder a build or run could read, and
leaves out what builds and interpreters write into it (bytecode caches, cargo's target/,
node_modules), so a fresh clone and a built checkout give the same digest.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

WRITTEN_BY_TOOLS = {"__pycache__", "target", "node_modules", "zig-cache", ".zig-cache"}
DIGEST_CHARS = 16


def _files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and not any(part in WRITTEN_BY_TOOLS or part.startswith(".") for part in p.relative_to(folder).parts)
    )


@functools.cache
def digest(folder: Path) -> str:
    """The first DIGEST_CHARS hex digits of the SHA-256 over the folder's files (names and bytes);
    computed once per folder and process: a program does not change under a running command."""
    h = hashlib.sha256()
    for f in _files(folder):
        h.update(str(f.relative_to(folder)).encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()[:DIGEST_CHARS]
