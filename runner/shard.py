"""`memrun sweep --shard I/K`: a fixed share of a sweep's cells, for spreading one sweep over the
machines of a CI matrix (then `memrun merge` joins their results).

A cell belongs to shard I of K by a hash of what the cell is (workload, variant, N, repeat), not
by its place in the sweep's list: a cell stays in its shard when variants or sizes are added or
removed, so a matrix job's share, and a resumed shard, never move. The shares are even in
number of cells on average, not in time (a cell at 1M costs far more than one at 1).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runner.workload import Workload

SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(ValueError):
    """A --shard value that names no share; the message says why, in one line."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as a CI matrix counts
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        m = SPEC.match(text)
        if not m:
            raise ShardError(f"--shard: {text!r} is not I/K (shard I of K, e.g. 2/4)")
        index, count = int(m.group(1)), int(m.group(2))
        if count < 1 or not 1 <= index <= count:
            raise ShardError(f"--shard: {text!r}: I must be from 1 to K, and K at least 1")
        return cls(index, count)

    def owns(self, workload: Workload, variant: str, n: int, repeat: int) -> bool:
        """Whether the cell is this shard's: the first 8 bytes of the SHA-256 of its identity (the
        workload by its name, as every machine knows it), modulo K (the hash is the same on every
        machine and Python, unlike hash())."""
        key = f"{workload.name}/{variant}/{n}/{repeat}".encode()
        return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
