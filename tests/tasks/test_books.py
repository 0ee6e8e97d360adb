"""[variant.books] (runner.tasks.books): the schema's checks, figures read from printed text, and
the real books of Go, Node, the BEAM, GHC and .NET read at the hold beside memrun's split of the
same run."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from runner import books, tasks
from runner.analysis import explain
from runner.results import RunRecord
from runner.tasks.books import read_books
from runner.tasks.parse import ManifestError
from runner.tasks.toolchain import tools_of

HERE = Path("task.toml")


def table(**figure: str) -> dict:
    spec = {"name": "heap", "regex": r"^heap (\d+)", "unit": "KiB", "part": "heap"} | figure
    return {"what": "the runtime's books", "figure": [spec]}


def test_a_figure_is_the_sum_of_its_matches_in_bytes():
    b = read_books(table(), "books", HERE)
    assert b is not None and b.read("heap 10\nother 5\nheap 2\n") == {"heap": 12 * 1024}
    assert b.read("nothing here") == {}
    assert read_books(None, "books", HERE) is None


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"figure": []}, "with a `what`"),
        ({"what": "x"}, "at least one"),
        (table(unit="pages"), "unit must be one of"),
        (table(part="elsewhere"), "part must be one of"),
        (table(regex="no group"), "needs a group"),
        (table(regex="(unclosed"), "regex"),
        ({**table(), "signal": "SIGNOPE"}, "no signal"),
        ({**table(), "wait_s": -1}, "wait_s must be a finite number"),
        ({**table(), "wait_s": float("nan")}, "wait_s must be a finite number"),
        ({**table(), "wait_s": float("inf")}, "wait_s must be a finite number"),
    ],
)
def test_a_wrong_books_table_is_a_manifest_error(data, says):
    with pytest.raises(ManifestError, match=says):
        read_books(data, "variant v: books", HERE)


def test_the_runtimes_that_must_be_compared_have_books():
    known = tasks.load_all()
    for name in ("go", "java-virtual", "java-threads", "node", "erlang", "elixir", "elixir-spawn", "haskell"):
        assert known[name].books is not None and known[name].books.figures, name
    assert known["bun"].books is None  # the same main.mjs: the books switch is Node's table's
    for name in ("dotnet", "dotnet-delay", "dotnet-threads"):
        assert known[name].books is not None and known[name].books.figures, name


def books_split(variant: str, n: int, sleep: float = 3.0) -> tuple[explain.BooksView, dict[str, float]]:
    view, per_task, _ = books_at(variant, n, sleep)
    return view, per_task


def books_at(
    variant: str, n: int, sleep: float = 3.0
) -> tuple[explain.BooksView, dict[str, float], dict[str, int]]:
    """The books view of runs at 1 and N, each figure per task, and the figures at N in bytes."""
    view, per_task, records = books_runs(variant, n, sleep)
    return view, per_task, dict(records[-1].books or {})


def books_runs(
    variant: str, n: int, sleep: float = 3.0
) -> tuple[explain.BooksView, dict[str, float], list[RunRecord]]:
    """The books view of runs at 1 and N, each figure per task, and the two records.

    The two runs go side by side: what is compared is each process's own books and memrun's RSS
    split of that same process at its hold, and a neighbour moves neither (RSS is the process's
    own pages); the CPU it takes can only delay a `ready`, which must still come within the sleep
    (each run is asserted valid)."""
    v = tasks.load_all()[variant]
    if not tasks.is_built(v):
        pytest.skip(f"{variant} is not built")
    with ThreadPoolExecutor(2) as pool:
        records = [
            runs[-1] for runs in pool.map(lambda k: books.run_long_enough(v, k, sleep, "here"), (1, n))
        ]
    for r in records:
        assert r.verdict == "valid" and r.kind == "books", (r.verdict, r.reason)
        assert set(r.books or {}) == {f.name for f in v.books.figures}, r.reason
    (view,) = explain.books_views(records, {variant: {f.name: f.part for f in v.books.figures}})
    return view, {line.name: line.per_task for line in view.lines}, records


@pytest.mark.serial
def test_gos_books_hold_what_memrun_finds_in_its_heap_arenas():
    view, per_task = books_split("go", 10_000)
    heap = dict((k, p) for k, _, p in view.split.rss.parts)["heap"]
    # a goroutine's stack is 2 KiB at least (runtime/stack.go), in Go's heap: all of it resident
    assert per_task["stacks (heap/stacks)"] == pytest.approx(2048, rel=0.02)
    assert per_task["heap Go holds (stacks + objects + unused + free)"] == pytest.approx(heap, rel=0.05)


def around_the_asking(record: RunRecord) -> tuple[int, int]:
    """The process's RSS by memrun's snapshot at the hold (smaps, read just before the signal) and
    at memrun's next sample (VmRSS), the first after the asking: the sampler waits while the
    program is asked and prints."""
    r = record.result
    assert r is not None and r.hold_split is not None
    before = sum(part["rss"] for part in r.hold_split["user"].values())
    after = next(s for s in r.timeline if s.t > r.hold_split["t"])
    return before, after.rss


@pytest.mark.serial
def test_nodes_books_are_read_at_the_hold():
    """Node's own RSS is /proc's figure for the process, read by itself on the signal memrun sends
    after its snapshot: for each run (1 and N) it lies between memrun's snapshot at the hold and
    memrun's next sample, once node has printed (1 % either side: /proc's counters move a few
    pages on their own). The two per-task figures are not compared with each other: the process
    grows while it answers (it loads node:v8; at N = 1 it may still be starting), at N by up to
    150 B a task more than at 1 in one CI run, and the bracket holds each run's figure to the
    moment it was read."""
    _, per_task, records = books_runs("node", 10_000)
    assert per_task["V8 heap used (used_heap_size)"] > 0
    for record in records:
        before, after = around_the_asking(record)
        books_rss = (record.books or {})["RSS (process.memoryUsage)"]
        low, high = min(before, after), max(before, after)
        assert low * 0.99 <= books_rss <= high * 1.01, (record.n, before, books_rss, after)


def fresh_beam_process_bytes(variant: str) -> int:
    """What one BEAM process waiting in `receive after` takes, by erlang:process_info(P, memory),
    in a VM of its own started with the variant's erl: a floor for each task's part of
    erlang:memory(processes), independent of the program."""
    erl = tools_of(tasks.load_all()[variant].folder)["erl"].path
    assert erl is not None
    code = (
        "P = spawn(fun() -> receive after 60000 -> ok end end), timer:sleep(50),"
        ' {memory, B} = erlang:process_info(P, memory), io:format("~b~n", [B]), halt().'
    )
    out = subprocess.run([erl, "-noshell", "-eval", code], capture_output=True, text=True, timeout=60)
    return int(out.stdout.split()[-1])


@pytest.mark.serial
@pytest.mark.parametrize("variant", ["erlang", "elixir", "elixir-spawn"])
def test_the_beams_books_count_at_least_a_fresh_process_per_task(variant):
    _, per_task = books_split(variant, 10_000)
    fresh = fresh_beam_process_bytes(variant)
    # the default min_heap_size alone is 233 words (erlang:spawn_opt/2's documentation)
    assert fresh > 233 * 8
    processes = per_task["processes (heaps, stacks, PCBs)"]
    # each task is one process at least, and main keeps a handle to each besides
    assert fresh <= processes <= 2 * fresh
    # per task, what processes use is what they were given: a waiting process's heap is its own
    assert per_task["processes used (processes_used)"] == pytest.approx(processes, rel=0.05)
    # Not compared with memrun's heap part per task: both are differences against N=1, and the
    # carriers' free space, resident at N=1 and filled at N, or carriers kept after main's heap
    # was collected, move them apart (seen at 10k: erts' figure 7 % above memrun's heap part in
    # elixir-spawn, 13-18 % below it in elixir); `memrun explain --books` shows the ratio.
    assert abs(per_task["system (everything not a process)"]) < processes / 4


@pytest.mark.serial
def test_ghcs_books_hold_each_threads_stack_and_tso_in_the_heap():
    view, per_task = books_split("haskell", 10_000)
    live = per_task["live heap (gcdetails_live_bytes)"]
    # each thread's first stack chunk is 1 KiB (+RTS -ki1k, GHC's default), a heap object, with
    # its TSO and its MVar beside it: all live while the thread waits
    assert live >= 1024
    assert per_task["most live heap at any major GC (max_live_bytes)"] >= live * 0.99
    # the RTS holds what is live and room for its copying GC, all of it in memrun's heap part
    held = per_task["megablocks held after the GC (gcdetails_mem_in_use_bytes)"]
    assert live <= held
    heap = dict((k, p) for k, _, p in view.split.rss.parts)["heap"]
    assert live <= heap * 1.05  # the live heap is resident at the hold, in the heap arenas


@pytest.mark.serial
@pytest.mark.parametrize(
    ("variant", "n"), [("dotnet", 10_000), ("dotnet-delay", 10_000), ("dotnet-threads", 1_000)]
)
def test_dotnets_books_hold_each_tasks_objects_in_the_managed_heap(variant, n):
    view, per_task, at_n = books_at(variant, n)
    live = per_task["live managed heap (GC.GetTotalMemory, after a full GC)"]
    # each task's Task or Thread object (16 B of object header alone) and its slot in main's array
    assert live >= 16 + 8
    assert live <= per_task["managed heap at the hold (GC.GetTotalMemory, before the GC)"] * 1.05
    # the heap the GC left is its live objects and the free space between them (at N, in bytes:
    # per task at a small N, the few KiB GetTotalMemory moves by after the GC would weigh more)
    heap, free = (
        at_n["heap after the GC (GCMemoryInfo.HeapSizeBytes)"],
        at_n["free space in that heap (GCMemoryInfo.FragmentedBytes)"],
    )
    assert heap == pytest.approx(
        at_n["live managed heap (GC.GetTotalMemory, after a full GC)"] + free, rel=0.05
    )
    assert live <= per_task["committed by the GC (GCMemoryInfo.TotalCommittedBytes)"] * 1.05
    # VmRSS read by the program against memrun's RSS at the hold: the same process, moments apart
    rss = per_task["working set (Environment.WorkingSet, before the GC)"]
    assert rss == pytest.approx(view.split.rss.total, rel=0.1)
