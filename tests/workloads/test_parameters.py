"""A workload's parameters: declared by the workload, made options by the CLI without an edit,
stored under `params`, and the identity of a sweep's cells."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from runner import workload as workloads
from runner.cli import main
from runner.cli.workload_options import parameter_values
from tests.support.cli import one_line_error, run


def test_the_http_defaults_and_a_value_given():
    got = parameter_values("http", {"rate": "2k", "window": "5s"})
    assert got == {
        "rate": [2000],
        "warmup": 10.0,
        "window": 5.0,
        "slo": 0.1,
        "server_cpus": [],
        "client_spin": 0.0,
        "header": None,
    }


def test_an_option_of_another_workload_is_refused():
    with pytest.raises(ValueError, match="--rate is a parameter of --workload http, not of sleep"):
        parameter_values("sleep", {"rate": "1k"})


def test_a_bad_value_names_its_option():
    with pytest.raises(ValueError, match="--warmup: not a duration"):
        parameter_values("http", {"warmup": "soon"})


def test_identity_parameters_decide_the_cells_and_the_slo_does_not():
    http = workloads.get("http")
    mine = http.parse_parameters({})
    row = {"workload": "http", **http.record_fields(mine)}
    assert http.keeps(row, {**mine, "slo": 0.5}), "another SLO judges the same measurement"
    assert not http.keeps(row, {**mine, "rate": [1000]})


def test_the_sweep_help_lists_every_parameter_with_what_it_takes():
    out = CliRunner().invoke(main, ["sweep", "--help"], terminal_width=200).output
    for workload in workloads.names():
        for p in workloads.get(workload).parameters:
            assert f"{p.option} {p.metavar}" in out, p.option
    for option, takes in (("--rate", "R1,R2,…"), ("--window", "DURATION"), ("--buffer", "SIZE")):
        assert f"{option} {takes}" in out


def test_a_parameter_of_another_workload_is_one_line_and_exit_2(tmp_path):
    p = run("sweep", "--rate", "1k", "--out", str(tmp_path / "out"), tmp_path=tmp_path)
    one_line_error(p, "--rate is a parameter of --workload http, not of sleep")
