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
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

WRITTEN_BY_TOOLS = {"__pycache__", "target", "node_modules", "zig-cache", ".zig-cache"}
DIGEST_CHARS = 16


def _kept(relative: PurePosixPath) -> bool:
    """Whether a file of the folder is the program's, not something a tool wrote into it."""
    return not any(part in WRITTEN_BY_TOOLS or part.startswith(".") for part in relative.parts)


def digest_of(files: Iterable[tuple[PurePosixPath, bytes]]) -> str:
    """The digest of a folder given as (path inside it, bytes) pairs, in any order: what digest()
    computes from disk, and what a folder at an old revision gives from git's objects."""
    h = hashlib.sha256()
    for relative, data in sorted((f for f in files if _kept(f[0])), key=lambda f: f[0]):
        h.update(str(relative).encode() + b"\0")
        h.update(data)
    return h.hexdigest()[:DIGEST_CHARS]


@functools.cache
def digest(folder: Path) -> str:
    """The first DIGEST_CHARS hex digits of the SHA-256 over the folder's files (names and bytes);
    computed once per folder and process: a program does not change under a running command."""
    files = (p for p in folder.rglob("*") if p.is_file())
    return digest_of((PurePosixPath(p.relative_to(folder).as_posix()), p.read_bytes()) for p in files)
