"""runner.shard: a sweep's cells split into K fixed shares, by what each cell is."""

from __future__ import annotations

import pytest

from runner.shard import Shard, ShardError
from runner.workload import Workload, get


def _cells(variants: list[str]) -> list[tuple[Workload, str, int, int]]:
    sleep = get("sleep")
    return [(sleep, v, n, r) for v in variants for n in (1, 10_000, 100_000, 1_000_000) for r in range(3)]


def test_every_cell_is_in_exactly_one_shard_and_the_shares_are_even():
    cells = _cells([f"v{i}" for i in range(40)])
    shards = [Shard(i, 4) for i in range(1, 5)]
    owners = [[s for s in shards if s.owns(*c)] for c in cells]
    assert all(len(o) == 1 for o in owners)
    counts = [sum(o[0] == s for o in owners) for s in shards]
    assert sum(counts) == len(cells) == 480 and min(counts) >= 0.8 * 120, counts


def test_a_cell_stays_in_its_shard_when_variants_are_added():
    shards = [Shard(i, 3) for i in range(1, 4)]
    before = {c: next(s for s in shards if s.owns(*c)) for c in _cells(["go", "node"])}
    after = {c: next(s for s in shards if s.owns(*c)) for c in _cells(["bun", "go", "java", "node"])}
    assert {c: after[c] for c in before} == before


@pytest.mark.parametrize("text", ["1/0", "0/4", "5/4", "2", "a/b", "1/4/2"])
def test_a_bad_shard_is_one_line(text):
    with pytest.raises(ShardError, match="--shard"):
        Shard.parse(text)


def test_parse_and_print():
    assert Shard.parse(" 2/4 ") == Shard(2, 4) and str(Shard(2, 4)) == "2/4"
