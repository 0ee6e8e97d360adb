"""runner.capacity.probes: when a probe stopped without `ready` deserves a longer sleep."""

from __future__ import annotations

from runner.capacity.probes import still_growing
from runner.measure import Sample

MIB = 1 << 20


def _timeline(memory, seconds: float = 4.0, step: float = 0.05, threads=lambda t: 20) -> list[Sample]:
    return [
        Sample(round(i * step, 3), memory(i * step), threads(i * step), 1, memory(i * step))
        for i in range(int(seconds / step) + 1)
    ]


def test_a_runtime_still_allocating_tasks_is_growing():
    assert still_growing(_timeline(lambda t: int((20 + 50 * t) * MIB)))


def test_a_runtime_sitting_at_its_own_heap_limit_is_not():
    # the JVM under a 1 GiB cap: a quarter of it for the heap, full by 1 s, then only collecting
    assert not still_growing(_timeline(lambda t: int(min(260, 40 + 400 * t) * MIB)))


def test_threads_still_starting_count_as_growing_even_with_flat_memory():
    assert still_growing(_timeline(lambda t: 300 * MIB, threads=lambda t: int(100 + 2000 * t)))


def test_too_short_to_tell_is_growing():
    assert still_growing(_timeline(lambda t: MIB, seconds=0.1))
