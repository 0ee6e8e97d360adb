"""runner.capacity.prepare: a search's history and variants are those of the Workload object the
CLI resolved once; stored rows keep the name (a row of before workloads is a sleep row)."""

from __future__ import annotations

from runner import workload as workloads
from runner.campaign import CampaignSettings
from runner.capacity import prepare
from runner.capacity.probes import CapacityOptions
from runner.results import ResultsDir, RunRecord
from runner.tasks.manifest import load_all
from tests.support.cli import FIXTURE_TASKS


def test_history_is_the_runs_of_the_workload_object(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = ResultsDir(tmp_path)
    out.add_run(RunRecord("fake", 1, "valid", code="ok"))  # the default workload by default
    out.add_run({**RunRecord("fake", 2, "valid", code="ok").to_json(), "workload": None})  # an old row
    out.add_run(RunRecord("fake", 3, "valid", code="ok", workload="connections"))
    sleep, connections = workloads.get("sleep"), workloads.get("connections")
    assert sorted(r.n for r in prepare.history(out, (), sleep)) == [1, 2]
    assert [r.n for r in prepare.history(out, (), connections)] == [3]


def test_variants_without_the_workload_are_named_and_left_out() -> None:
    variants = list(load_all(FIXTURE_TASKS).values())
    said: list[str] = []
    http = workloads.get("http")
    kept = prepare.with_workload(variants, http, log=said.append)
    assert all(v.workload is http for v in kept)
    assert len(kept) + len(said) == len(variants)
    assert all("no http workload in its manifest" in line for line in said)


def test_options_carry_the_default_workload_object(tmp_path) -> None:  # type: ignore[no-untyped-def]
    opts = CapacityOptions(CampaignSettings([], ResultsDir(tmp_path)), [1 << 20])
    assert opts.campaign.workload is workloads.get(None)
