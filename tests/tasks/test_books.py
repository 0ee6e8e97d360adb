"""[variant.books] (runner.tasks.books): the schema's checks, figures read from printed text, and
the real books of Go and Node read at the hold beside memrun's split of the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner import books, tasks
from runner.analysis import explain
from runner.tasks.books import read_books
from runner.tasks.parse import ManifestError

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
    ],
)
def test_a_wrong_books_table_is_a_manifest_error(data, says):
    with pytest.raises(ManifestError, match=says):
        read_books(data, "variant v: books", HERE)


def test_the_runtimes_that_must_be_compared_have_books():
    known = tasks.load_all()
    for name in ("go", "java-virtual", "java-threads", "node"):
        assert known[name].books is not None and known[name].books.figures, name
    assert known["bun"].books is None  # the same main.mjs: the books switch is Node's table's


def books_split(variant: str, n: int) -> tuple[explain.BooksView, dict[str, float]]:
    v = tasks.load_all()[variant]
    if not tasks.is_built(v):
        pytest.skip(f"{variant} is not built")
    records = [books.run(v, k, 3.0, "here") for k in (1, n)]
    for r in records:
        assert r.verdict == "valid" and r.kind == "books", (r.verdict, r.reason)
        assert set(r.books or {}) == {f.name for f in v.books.figures}, r.reason
    (view,) = explain.books_views(records, {variant: {f.name: f.part for f in v.books.figures}})
    return view, {line.name: line.per_task for line in view.lines}


@pytest.mark.serial
def test_gos_books_hold_what_memrun_finds_in_its_heap_arenas():
    view, per_task = books_split("go", 10_000)
    heap = dict((k, p) for k, _, p in view.split.rss.parts)["heap"]
    # a goroutine's stack is 2 KiB at least (runtime/stack.go), in Go's heap: all of it resident
    assert per_task["stacks (heap/stacks)"] == pytest.approx(2048, rel=0.02)
    assert per_task["heap Go holds (stacks + objects + unused + free)"] == pytest.approx(heap, rel=0.05)


@pytest.mark.serial
def test_nodes_books_are_read_at_the_hold():
    view, per_task = books_split("node", 10_000)
    assert per_task["V8 heap used (used_heap_size)"] > 0
    rss = per_task["RSS (process.memoryUsage)"]
    assert rss == pytest.approx(view.split.rss.total, rel=0.1)  # the same process, read 50 ms apart
