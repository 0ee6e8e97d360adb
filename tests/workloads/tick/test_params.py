"""`--state` and `--period`: one line naming the option for a bad value, exit 2, nothing stored;
a list of periods is a sweep each."""

from __future__ import annotations

import pytest

from runner import workload as workloads
from runner.cli.workload_options import parameter_values
from tests.support.cli import one_line_error, run


def test_the_defaults_and_a_list_of_periods():
    got = parameter_values("tick", {})
    assert got == {"state": 1024, "period": (1.0,)}
    tick = workloads.get("tick")
    two = tick.campaigns(parameter_values("tick", {"period": "10s,250ms", "state": "4KiB"}))
    assert two == [{"state": 4096, "period": 0.25}, {"state": 4096, "period": 10.0}]


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--state", "0", "--state: size must be at least 1 byte"),
        ("--state", "1PiB", "--state: not a size"),
        ("--state", "1TiB", "--state: must be at most"),
        ("--period", "0", "--period: a period must be from 1ms to 1h"),
        ("--period", "-1s", "--period: not a duration"),
        ("--period", "nan", "--period: not a duration"),
        ("--period", "1s,1s", "--period: a period is given more than once"),
    ],
)
def test_a_bad_value_is_one_line_naming_its_option_and_nothing_is_stored(tmp_path, option, value, says):
    out = tmp_path / "out"
    p = run("sweep", "--workload", "tick", "--n", "1", option, value, "--out", str(out), tmp_path=tmp_path)
    one_line_error(p)
    assert says in p.stderr, p.stderr
    assert not (out / "runs.jsonl").exists()


def test_a_cell_over_the_thread_limits_is_stopped_once_its_first_wakes_are_long_due():
    """sleep 5 s at 1 s: stopped at 8 s without `ready`; the sleep workload keeps its sleep."""
    assert workloads.get("tick").ready_deadline(5.0, {"period": 1.0}) == 8.0
    assert workloads.get("tick").ready_deadline(5.0, {"period": (1.0, 10.0)}) == 35.0
    assert workloads.get("sleep").ready_deadline(5.0, {}) == 5.0
    assert workloads.get("connections").ready_deadline(5.0, {}) is None
