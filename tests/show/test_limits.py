"""runner.show.limits: the text of `memrun limits`."""

from __future__ import annotations

import re

import pytest

from runner import tasks
from runner.show.limits import limits_report


def test_limits_report_names_the_limit_each_variant_hits():
    text = limits_report(100_000, tasks.load_all().values())
    assert "vm.max_map_count" in text and "kernel.pid_max" in text
    rust = next(line for line in text.splitlines() if line.startswith("  rust-threads"))
    assert "1 OS thread(s), 4 mapping(s), 2048 KiB of stack per task" in rust
    async_line = next(line for line in text.splitlines() if "no OS thread" in line)
    assert "rust-tokio" in async_line and "go" in async_line
    assert "give --n" in limits_report(None, tasks.load_all().values())


def test_connections_report_without_n_shows_values_but_no_needs():
    from runner.workloads.connections.limits import limits_report as connections_report

    text = connections_report(None, tasks.load_all().values())
    assert text.startswith("Limits one connection meets here")
    assert "fs.nr_open" in text and "net.core.somaxconn" in text and "RLIMIT_NOFILE (server)" in text
    assert "N needs" not in text and "HIT" not in text.split("\n\n")[0]
    assert "--raise-limits" not in text


def test_connections_limits_take_the_buffer_a_sweep_would_and_no_other_workloads_option(tmp_path):
    """`memrun limits --workload connections --buffer 64KiB` prices each connection's task at the
    buffer given, as a sweep with it would run; another workload's option is refused, not ignored."""
    from runner.workload import get
    from tests.support.cli import one_line_error, run

    conn, variants = get("connections"), list(tasks.load_all().values())
    default = conn.parse_parameters({})["buffer"]
    assert f"{default:,}-byte buffer" in (conn.limits_report(100_000, variants) or "")
    bigger = conn.limits_report(100_000, variants, conn.parse_parameters({"buffer": "64KiB"}))
    assert "65,536-byte buffer" in (bigger or "")
    shown = run("limits", "--workload", "connections", "--n", "1e5", "--buffer", "64KiB", tmp_path=tmp_path)
    assert shown.returncode == 0 and "65,536-byte buffer" in shown.stdout, shown.stderr
    refused = run("limits", "--workload", "connections", "--rate", "1k", tmp_path=tmp_path)
    one_line_error(refused, "--rate")


def test_what_memrun_limits_prints_takes_the_stored_costs_only_with_n(tmp_path):
    from runner.results import ResultsError
    from runner.show.limits import limits_here, stored_costs
    from runner.workload import get
    from tests.support.crafted import write_results

    variants = list(tasks.load_all().values())
    data = write_results(
        tmp_path / "data", "box", {("rust-threads", 1): [2.0], ("rust-threads", 10_000): [90.0]}
    )
    records, source = stored_costs(str(data))
    assert len(records) == 2 and source == str(data)
    # two reads of the live machine: the count of threads and processes now may move between them
    assert _steady(limits_here(100_000, variants, get(), {}, str(data))) == _steady(
        limits_report(100_000, variants, records, source)
    )
    # without --n the stored costs are not read (nowhere is never opened); the live figures masked
    unread = limits_here(None, variants, get(), {}, "nowhere")
    assert _steady(unread) == _steady(limits_report(None, variants))
    with pytest.raises(ResultsError, match=r"^--results: "):
        stored_costs(str(tmp_path / "nowhere"))
    conn = get("connections")
    own = limits_here(10, variants, conn, conn.parse_parameters({}))  # read live: sockets open now
    assert "At N = 10 connections" in own and "Limits that cap threads" not in own


def _steady(text: str) -> str:
    """The report with the figures of the live machine masked (tasks running now, memory available
    and committed, and the N each limit allows, which follow them: they move from one read to the
    next), keeping what comes from the stored costs: the lines that price tasks per N."""
    return "\n".join(
        line if "per task from N=" in line else re.sub(r"\d[\d,.]*", "N", line) for line in text.splitlines()
    )
