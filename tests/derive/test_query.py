"""runner.derive.query: the values and tables the docs quote, from crafted results of known
figures (every expected number below is worked out from the crafted MB by hand)."""

from __future__ import annotations

import json

import pytest

from runner.derive import query
from runner.derive.query import QueryError, table, value
from tests.support.crafted import write_results

HOST = {
    ("go", 1): [2.0],
    ("go", 10_000): [42.96],
    ("python", 1): [20.0],
    ("python", 10_000): [60.96, 61.5, 60.0],
}
GUEST = {("go", 1): [2.0], ("go", 10_000): [52.0], ("python", 1): [20.0], ("python", 10_000): [None]}


@pytest.fixture
def dirs(tmp_path):  # type: ignore[no-untyped-def]
    query._loaded.cache_clear()
    host = write_results(tmp_path / "host", "box", HOST, label="box")
    guest = write_results(
        tmp_path / "kernels", "box", GUEST, label="box@6.1", fingerprint={"ram_bytes": 21_590_000_000}
    )
    write_results(guest, "box", {("go", 1): [3.0]}, label="box", sweep_id="second")  # a second label
    for path in (host, guest):  # ready_s: 0.5 s in every crafted run; make the guest's 10k ones slower
        rows = [json.loads(line) for line in (path / "runs.jsonl").read_text().splitlines()]
        for r in rows:
            if path == guest and r["n"] == 10_000 and r["verdict"] == "valid":
                r["ready_s"] = 6.0
        (path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return host, guest


def test_a_value_per_variant_and_against_another_selection(dirs):
    host, guest = dirs
    # (42.96 - 2.0) MB / 10,000 = 4,096 B = 4.00 KiB; python: (60.96, the median, - 20.0) / 10k too
    assert value(str(host), "per_task:peak_rss@1e4", "sleep", "each") == "go 4.00, python 4.00"
    assert value(str(host), "peak_rss@1e4", "sleep", "range") == "43.0–61.0"
    assert (
        value(f"{guest}:box@6.1", "ready_s@1e4", "sleep", "span", against=str(host))
        == "12.0× (go) to 12.0× (go)"
    )
    assert value(f"{guest}:box@6.1", "per_task:peak_rss@1e4{:.3f} KiB", "sleep", "one", against=str(host),
                 how="difference") == "0.883 KiB"  # (52.0 - 42.96) MB / 10k = 904 B  # fmt: skip
    assert value(f"{guest}:box@6.1", "machine:ram_bytes", "sleep") == "20.1 GiB"
    assert (
        value(str(host), "runs", "sleep", "total") == "6"
        and value(f"{host}#2-", "runs", "sleep", "count") == "0"
    )


def test_a_selection_or_quantity_that_cannot_be_answered_says_why(dirs):
    host, guest = dirs
    with pytest.raises(QueryError, match=r"holds 2 labels \(box, box@6.1\): name one, DIR:LABEL"):
        value(str(guest), "ready_s@1e4", "sleep")
    with pytest.raises(QueryError, match="2 variants have a value"):
        value(str(host), "ready_s@1e4", "sleep", "one")
    with pytest.raises(QueryError, match="say at which N"):
        value(str(host), "ready_s", "sleep")
    with pytest.raises(QueryError, match="no connections runs of label 'box'"):
        value(f"{host}:box", "ready_s@1e4", "connections")


def test_a_table_joins_figures_and_says_why_a_cell_has_none(dirs):
    host, guest = dirs
    text = table(
        {"h": str(host), "g": f"{guest}:box@6.1"},
        ["host MB · KiB=h:peak_rss@1e4+h:per_task:peak_rss@1e4", "guest KiB=g:per_task:peak_rss@1e4"],
        "sleep",
        sort=2,
    )
    assert text.splitlines() == [
        "| variant | host MB · KiB | guest KiB |",
        "|---|---|---|",
        "| go | 43.0 · 4.00 | 4.88 |",
        "| python | 61.0 · 4.00 | no figure: thread limit: kernel.pid_max |",
    ]


def test_held_rss_reads_the_timeline_between_ready_and_the_end_of_the_sleep(dirs):
    """ready at 0.5 s, a 10 s sleep: the samples before (spawning) and after (closing) are out."""
    host, _ = dirs
    points = {
        "sweep-box-go-1-0": [[0.2, 3_000_000, 1, 1, None], [1.0, 2_000_000, 1, 1, None]],
        "sweep-box-go-10000-0": [
            [0.2, 90_000_000, 9, 1, None],
            [1.0, 30_000_000, 9, 1, None],
            [5.0, 32_480_000, 9, 1, None],
            [10.7, 95_000_000, 9, 1, None],
        ],
    }
    (host / "timelines.jsonl").write_text(
        "".join(json.dumps({"run_id": k, "timeline": v}) + "\n" for k, v in points.items())
    )
    # (32.48 - 2.0) MB / 10,000 = 3,048 B = 2.98 KiB
    assert value(str(host), "per_task:held_rss@1e4", "sleep", "one", variants=("go",)) == "2.98"
    assert value(str(host), "held_rss@1e4", "sleep", "one", variants=("go",)) == "32.5"


def test_sort_0_keeps_the_order_rows_were_asked_in(dirs):
    """Versions in version order (go@1.26.8 before go@1.26.11), which no column gives."""
    host, _ = dirs
    text = table({"h": str(host)}, ["MB=h:peak_rss@1e4"], "sleep", variants=("python", "go"), sort=0)
    assert [line.split(" | ")[0] for line in text.splitlines()[2:]] == ["| python", "| go"]
