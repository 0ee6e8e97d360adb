"""runner.measure.smaps: each kind of mapping, from smaps text laid out as the kernel writes it."""

from __future__ import annotations

from runner.measure import smaps

KiB, MiB = 1024, 1 << 20


def mapping(start: int, size: int, perms: str, path: str = "", rss: int = 0) -> str:
    inode = "1234" if path.startswith("/") else "0"
    head = f"{start:012x}-{start + size:012x} {perms} 00000000 00:00 {inode}"
    head += f"                    {path}" if path else " "
    return (
        f"{head}\nSize:           {size // KiB} kB\n"
        "KernelPageSize:        4 kB\nMMUPageSize:           4 kB\n"
        f"Rss:            {rss // KiB} kB\nPss:            {rss // KiB} kB\nAnonymous:      0 kB\n"
        "VmFlags: rd wr mr mw me ac sd\n"
    )


def layout() -> bytes:
    base = 0x7F0000000000
    parts = [
        mapping(0x400000, 64 * KiB, "r-xp", "/usr/bin/prog", rss=40 * KiB),
        mapping(0x600000, 132 * KiB, "rw-p", "[heap]", rss=12 * KiB),
        # a pthread stack: a guard page below 8 MiB of stack, of which 8 KiB are touched
        mapping(base, 4 * KiB, "---p"),
        mapping(base + 4 * KiB, 8 * MiB, "rw-p", rss=8 * KiB),
        # a malloc arena: 132 KiB committed at the low end of a 64 MiB reservation
        mapping(base + 0x1000000, 132 * KiB, "rw-p", rss=100 * KiB),
        mapping(base + 0x1000000 + 132 * KiB, 64 * MiB - 132 * KiB, "---p"),
        # a large anonymous mapping (a runtime's heap arena), and a small one
        mapping(base + 0x8000000, 64 * MiB, "rw-p", rss=3 * MiB),
        mapping(base + 0xC000000, 16 * KiB, "rw-p", rss=16 * KiB),
        mapping(0x7FFFF0000000, 132 * KiB, "rw-p", "[stack]", rss=20 * KiB),
        mapping(0x7FFFF8000000, 8 * KiB, "r-xp", "[vdso]", rss=8 * KiB),
    ]
    return "".join(parts).encode()


def test_every_kind_of_mapping_is_classified_by_what_the_kernel_shows():
    maps = smaps.parse(layout())
    assert len(maps) == 10
    assert smaps.classify(maps) == [
        "file", "heap", "guard", "stack", "heap", "anon", "heap", "anon", "stack", "anon"
    ]  # fmt: skip


def test_the_split_sums_resident_and_reserved_bytes_per_class():
    out = smaps.split(layout())
    assert out["stack"] == {"rss": 28 * KiB, "size": 8 * MiB + 132 * KiB, "count": 2}
    assert out["guard"] == {"rss": 0, "size": 4 * KiB, "count": 1}
    assert out["heap"]["rss"] == 12 * KiB + 100 * KiB + 3 * MiB
    assert out["file"]["rss"] == 40 * KiB
    assert out["anon"]["rss"] == 16 * KiB + 8 * KiB  # the small mapping and the vdso
    assert out["anon"]["size"] == 16 * KiB + 8 * KiB + 64 * MiB - 132 * KiB  # the reservation: never resident


def test_a_large_inaccessible_neighbour_below_is_no_guard():
    base = 0x7F0000000000
    text = (mapping(base, 1 * MiB, "---p") + mapping(base + MiB, 64 * KiB, "rw-p", rss=64 * KiB)).encode()
    assert smaps.classify(smaps.parse(text)) == ["anon", "anon"]


def test_a_guard_must_touch_its_stack():
    base = 0x7F0000000000
    text = (mapping(base, 4 * KiB, "---p") + mapping(base + 8 * KiB, 64 * KiB, "rw-p")).encode()
    assert smaps.classify(smaps.parse(text)) == ["anon", "anon"]


def test_this_process_reads_and_sums_to_its_rss():
    import os

    from runner.measure import procfs

    split = smaps.read_split(os.getpid())
    status = procfs.read_status(os.getpid())
    assert split is not None and status is not None
    total = sum(part["rss"] for part in split.values())
    assert abs(total - status.rss) <= max(256 * KiB, status.rss // 50), (total, status.rss)
    assert split["stack"]["count"] >= 1 and split["file"]["rss"] > 0
    assert smaps.read_split(2**22 + 12345) is None  # no such process
