"""The memory runs may still take: MemAvailable less the reserve, within the enclosing cgroup."""

from __future__ import annotations

from runner.scheduling import memory
from runner.units import GIB, KIB


def test_free_memory_is_memavailable_less_the_reserve(tmp_path, monkeypatch):
    info = tmp_path / "meminfo"
    info.write_text(f"MemTotal: {24 * GIB // KIB} kB\nMemFree: 1 kB\nMemAvailable: {20 * GIB // KIB} kB\n")
    monkeypatch.setattr(memory, "_enclosing_room", lambda: None)
    assert memory.free_memory(info) == 20 * GIB - int(0.10 * 24 * GIB)
    monkeypatch.setattr(memory, "_enclosing_room", lambda: 3 * GIB)  # a container's limit, nearly full
    assert memory.free_memory(info) == 3 * GIB
    info.write_text("MemTotal: 1 kB\n")
    assert memory.free_memory(info) is None


def test_the_room_of_a_cgroup_is_the_least_of_its_own_and_its_ancestors(tmp_path):
    root = tmp_path / "cg"
    own = root / "slice" / "session"
    own.mkdir(parents=True)
    (root / "slice" / "memory.max").write_text(f"{8 * GIB}\n")
    (root / "slice" / "memory.current").write_text(f"{7 * GIB}\n")
    (own / "memory.max").write_text("max\n")
    (own / "memory.current").write_text(f"{2 * GIB}\n")
    assert memory.cgroup_room(root, "/slice/session", "memory.max", "memory.current") == 1 * GIB
    (root / "slice" / "memory.max").write_text("max\n")
    assert memory.cgroup_room(root, "/slice/session", "memory.max", "memory.current") is None
