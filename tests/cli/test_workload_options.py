"""The CLI's words on workloads come from the registered workloads (runner.cli.workload_options):
every one is listed, http included, in its own words, and `sweep --help` ends with what each measures."""

from __future__ import annotations

from click.testing import CliRunner

from runner import workload as workloads
from runner.cli import main
from runner.cli.workload_options import SHOWN_WORKLOAD_HELP, WORKLOAD_HELP


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_every_registered_workload_is_in_the_help_in_its_own_words():
    assert "http" in workloads.names()
    for name in workloads.names():
        w = workloads.get(name)
        assert w.about and f"'{name}' = {w.about}" in WORKLOAD_HELP
        assert name in SHOWN_WORKLOAD_HELP
        if w.shown_help:
            assert w.shown_help in SHOWN_WORKLOAD_HELP


def test_sweep_and_capacity_help_end_with_each_workloads_paragraph():
    for command, part in (("sweep", "sweep_help"), ("capacity", "capacity_help")):
        out = _flat(CliRunner().invoke(main, [command, "--help"], terminal_width=120).output)
        texts = [getattr(workloads.get(name), part) for name in workloads.names()]
        assert any(texts)
        for text in filter(None, texts):
            assert _flat(text) in out, (command, text[:40])
