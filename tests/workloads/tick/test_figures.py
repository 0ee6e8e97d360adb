"""The tick workload's figures: every line of the lateness chart has a look of its own."""

from __future__ import annotations

from runner.workloads.tick.figures import lateness_chart, line_style


def test_forty_lines_never_share_a_colour_dash_and_marker():
    looks = [line_style(i) for i in range(40)]
    assert len(set(looks)) == 40


def test_the_lateness_chart_draws_29_runtimes_each_in_its_own_look():
    cells = {
        (f"v{i:02d}", n): {"lateness": {"p99_us": 100.0 * (i + 1) * n / 1000}, "keeps_up": i % 2 == 0}
        for i in range(29)
        for n in (1000, 100_000)
    }
    fig = lateness_chart(cells, "title", "note")
    assert fig is not None
    lines = [line for line in fig.axes[0].get_lines() if not line.get_label().startswith("_")]
    looks = {(tuple(line.get_color()), line.get_linestyle()) for line in lines}
    assert len(lines) == 29 and len(looks) == 29
