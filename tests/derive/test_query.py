"""runner.derive.query: the values and tables the docs quote, from crafted results of known
figures (every expected number below is worked out from the crafted MB by hand)."""

from __future__ import annotations

import json

import pytest

from runner.derive import stored
from runner.derive.query import QueryError, value
from runner.derive.tabulate import table
from runner.workload import get
from tests.support.crafted import write_results

HOST = {
    ("go", 1): [2.0],
    ("go", 10_000): [42.96],
    ("python", 1): [20.0],
    ("python", 10_000): [60.96, 61.5, 60.0],
}
GUEST = {("go", 1): [2.0], ("go", 10_000): [52.0], ("python", 1): [20.0], ("python", 10_000): [None]}

SLEEP = get("sleep")  # what the CLI resolves --workload to


@pytest.fixture
def dirs(tmp_path):  # type: ignore[no-untyped-def]
    stored.stored.cache_clear()
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
    assert value(str(host), "per_task:peak_rss@1e4", SLEEP, "each") == "go 4.00, python 4.00"
    assert value(str(host), "peak_rss@1e4", SLEEP, "range") == "43.0–61.0"
    assert (
        value(f"{guest}:box@6.1", "ready_s@1e4", SLEEP, "span", against=str(host))
        == "12.0× (go) to 12.0× (go)"
    )
    assert value(f"{guest}:box@6.1", "per_task:peak_rss@1e4{:.3f} KiB", SLEEP, "one", against=str(host),
                 how="difference") == "0.883 KiB"  # (52.0 - 42.96) MB / 10k = 904 B  # fmt: skip
    assert value(f"{guest}:box@6.1", "machine:ram_bytes", SLEEP) == "20.1 GiB"
    assert (
        value(str(host), "runs", SLEEP, "total") == "6" and value(f"{host}#2-", "runs", SLEEP, "count") == "0"
    )


def test_a_selection_or_quantity_that_cannot_be_answered_says_why(dirs):
    host, guest = dirs
    with pytest.raises(QueryError, match=r"holds 2 labels \(box, box@6.1\): name one, DIR:LABEL"):
        value(str(guest), "ready_s@1e4", SLEEP)
    with pytest.raises(QueryError, match="2 variants have a value"):
        value(str(host), "ready_s@1e4", SLEEP, "one")
    with pytest.raises(QueryError, match="say at which N"):
        value(str(host), "ready_s", SLEEP)
    with pytest.raises(QueryError, match="no connections runs of label 'box'"):
        value(f"{host}:box", "ready_s@1e4", get("connections"))


def test_a_table_joins_figures_and_says_why_a_cell_has_none(dirs):
    host, guest = dirs
    text = table(
        {"h": str(host), "g": f"{guest}:box@6.1"},
        ["host MB · KiB=h:peak_rss@1e4+h:per_task:peak_rss@1e4", "guest KiB=g:per_task:peak_rss@1e4"],
        SLEEP,
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
    assert value(str(host), "per_task:held_rss@1e4", SLEEP, "one", variants=("go",)) == "2.98"
    assert value(str(host), "held_rss@1e4", SLEEP, "one", variants=("go",)) == "32.5"


def test_sort_0_keeps_the_order_rows_were_asked_in(dirs):
    """Versions in version order (go@1.26.8 before go@1.26.11), which no column gives."""
    host, _ = dirs
    text = table({"h": str(host)}, ["MB=h:peak_rss@1e4"], SLEEP, variants=("python", "go"), sort=0)
    assert [line.split(" | ")[0] for line in text.splitlines()[2:]] == ["| python", "| go"]


def test_a_figure_over_a_published_one_and_several_pooled_for_a_range(dirs):
    """Ours over the article's: go's 42.96 MB at 10k over 42.96 is 1.00, its 2.0 MB at 1 over 4
    is 0.50; pooled, one range, the last part's format for both."""
    host, _ = dirs
    assert value(str(host), "peak_rss@1e4/42.96", SLEEP, variants=("go",)) == "1.00"
    assert value(str(host), "peak_rss@1/4;peak_rss@1e4/42.96{:.2f}×", SLEEP, "range", variants=("go",)) == (
        "0.50–1.00×"
    )
    with pytest.raises(QueryError, match="several quantities pool"):
        value(str(host), "peak_rss@1/4;peak_rss@1e4/42.96", SLEEP, "one", variants=("go",))
    with pytest.raises(QueryError, match="divided by 0"):
        value(str(host), "peak_rss@1/0", SLEEP, variants=("go",))


def test_runs_and_valid_runs_at_n_count_a_cell(dirs):
    host, guest = dirs
    assert value(str(host), "runs@1e4", SLEEP, variants=("python",)) == "3"
    # the guest's python at 10k failed (no figure): one run, none valid
    assert value(f"{guest}:box@6.1", "runs@1e4", SLEEP, variants=("python",)) == "1"
    assert value(f"{guest}:box@6.1", "valid@1e4", SLEEP, variants=("python",)) == "0"


def _answer(cid: str, finished: str, max_n: int, cost: float, floor: float, probes: int) -> dict[str, object]:
    return {"variant": "go", "budget_bytes": 256 << 20, "max_n": max_n, "capacity_id": cid, "label": "box",
            "workload": "sleep", "finished_at": finished, "cost_s": cost, "floor_s": floor, "format": 2,
            "probe_ids": [f"p{i}" for i in range(probes)], "confirmed": True, "noisy": False}  # fmt: skip


def test_capacity_figures_come_from_the_stored_answers(dirs):
    """The latest answer by default, the first session's with #1-1; vs_naive over what dividing
    256 MiB by go's sweep predicts: (268,435,456 - 2,000,000) / 4,096 B = 65,048, and 32,524 is half."""
    host, _ = dirs
    from runner.derive import answers

    answers._stored.cache_clear()
    rows = [_answer("cap-1", "2026-11-20T11:00:00+0000", 30_000, 90.0, 60.0, 3),
            _answer("cap-2", "2026-11-20T12:00:00+0000", 32_524, 20.0, 40.0, 1)]  # fmt: skip
    (host / "capacity.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert value(str(host), "capacity:max_n@256MiB", SLEEP) == "32,524"
    assert value(f"{host}#1-1", "capacity:max_n@256MiB", SLEEP) == "30,000"
    assert value(f"{host}#1-1", "capacity:cost_floor@256MiB{:.2f} ×", SLEEP) == "1.50 ×"
    assert value(f"{host}#1-1", "capacity:probes@256MiB", SLEEP) == "3"
    assert value(str(host), "capacity:cost_s@256MiB", SLEEP) == "20.00 s"
    assert value(str(host), "capacity:vs_naive@256MiB", SLEEP) == "0.50"
    with pytest.raises(QueryError, match="no capacity answer at 1,073,741,824 bytes"):
        value(str(host), "capacity:max_n@1GiB", SLEEP)
    with pytest.raises(QueryError, match="capacity:FIELD@BUDGET"):
        value(str(host), "capacity:max_n", SLEEP)


def test_a_sweeps_recorded_time_is_summed_over_the_selection(dirs):
    host, _ = dirs
    with pytest.raises(QueryError, match=r"no sweep of .* recorded it"):
        value(str(host), "sweep:total_wall_s", SLEEP)
    stored.stored.cache_clear()
    end = {
        "sweep_id": "sweep-box",
        "event": "end",
        "total_wall_s": 1786.4,
        "programs_wall_s": 1785.2,
        "format": 2,
    }
    with (host / "sweeps.jsonl").open("a") as f:
        f.write(json.dumps(end) + "\n")
    assert value(str(host), "sweep:total_wall_s{:,.0f} s", SLEEP) == "1,786 s"
    assert value(str(host), "sweep:programs_wall_s", SLEEP) == "1785.20 s"


def test_every_variant_against_one_variant(dirs):
    """python's 61.0 MB at 10k over go's 42.96 in the same selection: 1.42."""
    host, _ = dirs
    assert value(str(host), "peak_rss@1e4{:.2f}", SLEEP, variants=("python",), against_variant="go") == "1.42"
    with pytest.raises(QueryError, match="--against-variant rust: no such variant"):
        value(str(host), "peak_rss@1e4", SLEEP, variants=("python",), against_variant="rust")
