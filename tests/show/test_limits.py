"""runner.show.limits: the text of `memrun limits`."""

from __future__ import annotations

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
