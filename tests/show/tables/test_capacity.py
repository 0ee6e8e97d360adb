"""runner.show.capacity: a band in words, in the table and in the figure; cost against the floor."""

from __future__ import annotations

import pandas as pd

from runner.show.figures.capacity import capacity_figures
from runner.show.tables.capacity import band_text, capacity_markdown, check_summary, cost_total

MIB = 1 << 20
POINT = {"variant": "go", "budget_bytes": 256 * MIB, "max_n": 93_879, "first_failing_n": 95_757,
         "stopped_by": "out-of-memory", "probes": 3, "cost_s": 12.0, "floor_s": 12.0}  # fmt: skip
BAND = {"variant": "java-virtual", "budget_bytes": 256 * MIB, "max_n": 74_617, "first_failing_n": 75_474,
        "stopped_by": "timeout", "probes": 9, "noisy": True, "flaky_up_to": 120_767, "flaky_passed": 3,
        "flaky_failed": 10, "cost_s": 40.0, "floor_s": 16.0}  # fmt: skip
OLD_NOISY = {"variant": "node", "budget_bytes": 256 * MIB, "max_n": 485_681, "first_failing_n": 490_904,
             "noisy": True, "probes": 10}  # fmt: skip


def test_a_band_reads_as_the_issue_asks_and_a_point_has_none():
    assert band_text(BAND) == "75.5k–121k pass or fail from run to run (3 passed, 10 failed)"
    one = {
        **BAND,
        "max_n": 70_383,
        "first_failing_n": 73_903,
        "flaky_up_to": 73_903,
        "flaky_passed": 1,
        "flaky_failed": 2,
    }
    assert band_text(one) == "at 73,903 runs pass or fail (1 passed, 2 failed)"
    assert band_text(POINT) is None and band_text(OLD_NOISY) is None
    # a band whose fitting runs above max N all lie below its first failure (the 5 % step)
    below = {**BAND, "max_n": 49_882, "first_failing_n": 54_494, "flaky_up_to": 53_425,
             "flaky_passed": 2, "flaky_failed": 1}  # fmt: skip
    assert band_text(below) == "fitted up to 53.4k, failed from 54.5k (2 passed, 1 failed above max N)"


def test_the_table_shows_the_band_and_an_old_noisy_row_as_before():
    table = capacity_markdown([POINT, BAND, OLD_NOISY])
    assert "**74,617** · 291/MiB · 75.5k–121k pass or fail from run to run" in table
    assert "**485,681**" in table and "*noisy*" in table


def test_cost_total_sums_cost_and_floor_over_searches_that_recorded_them():
    text = cost_total([POINT, BAND, OLD_NOISY])
    assert text.startswith("2 searches, 12 probes") and "0.9 min of probes" in text
    assert text.endswith("1.86× floor")  # (12 + 40) / (12 + 16)


def test_check_summary_judges_points_and_bands_apart_and_counts_what_it_lowered():
    checks = [
        {"noisy": False, "held": True, "lowered_to": None},
        {"noisy": False, "held": False, "lowered_to": 950},
        {"noisy": True, "held": True, "lowered_to": None},
        {"noisy": True, "held": False, "lowered_to": 900},
        {"skipped": "its runs were of another program"},
    ]
    assert check_summary(checks) == (
        "1 of 2 point answers hold (50 %). 1 of 2 bands hold at max N (50 %). "
        "2 answer(s) lowered, each stored again with the reason. "
        "1 not checked (their runs were of another program or version)."
    )


def test_the_figure_draws_the_flaky_span_as_a_lighter_bar():
    (stem, fig), *_ = list(capacity_figures([POINT, BAND], pd.DataFrame(), [{"started_at": "2026-11-23"}]))
    assert stem == "capacity-256MiB"
    bars = fig.axes[0].patches
    light = [b for b in bars if b.get_alpha() == 0.3]
    assert len(bars) == 3 and len(light) == 1
    assert (light[0].get_x(), light[0].get_x() + light[0].get_width()) == (74_617, 120_767)


def test_answers_of_two_labels_are_two_tables_and_two_sets_of_figures():
    """A guest's answers (LABEL@RELEASE) never share a row, a cell or a figure with the host's."""
    host, guest = {**POINT, "label": "box"}, {**POINT, "max_n": 80_000, "label": "box@6.12"}
    table = capacity_markdown([host, guest])
    first, second = table.split("**box@6.12**")
    assert first.startswith("**box**") and "**93,879**" in first and "80,000" not in first
    assert "**80,000**" in second and "93,879" not in second
    runs = pd.DataFrame(columns=["label", "variant", "n"])
    stems = [stem for stem, _ in capacity_figures([host, guest], runs, [])]
    assert stems == ["capacity-256MiB-box", "capacity-256MiB-box-6-12"]
    assert [stem for stem, _ in capacity_figures([host], runs, [])] == ["capacity-256MiB"]


def test_another_workloads_answers_never_take_the_sleep_figures_names():
    """`memrun plot --workload connections` once wrote its answers over capacity-256MiB.*."""
    connections = {**POINT, "workload": "connections"}
    stems = [stem for stem, _ in capacity_figures([connections], pd.DataFrame(), [])]
    assert stems == ["connections-capacity-256MiB"]
