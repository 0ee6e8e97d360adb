"""runner.campaign.CampaignSettings: the one typed account of what a sweep's and a capacity
search's runs share. A misspelt setting, or a parameter the workload does not have, is an error
where the options are built, not a keyword passed along until a run ignores it; the options are
frozen; and a run's Settings take the shared part from them, the scheduler's spec as it is."""

from __future__ import annotations

import dataclasses

import pytest

from runner import workload as workloads
from runner.campaign import CampaignSettings
from runner.capacity import CapacityOptions
from runner.inputs import SleepSpec
from runner.measure import RunSpec
from runner.results import ResultsDir
from runner.sweep import SweepOptions


def test_a_misspelt_setting_is_a_type_error_where_the_options_are_built(tmp_path):
    out = ResultsDir(tmp_path)
    with pytest.raises(TypeError, match="intervall"):
        CampaignSettings([], out, intervall=0.1)  # type: ignore[call-arg]
    campaign = CampaignSettings([], out)
    with pytest.raises(TypeError, match="memory_capp"):
        SweepOptions(campaign, [1], SleepSpec(1.0), 1, memory_capp=1 << 20)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="fressh"):
        CapacityOptions(campaign, [1 << 20], fressh=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="timout"):
        RunSpec(timout=3.0)  # type: ignore[call-arg]


def test_a_parameter_the_workload_does_not_have_is_a_type_error(tmp_path):
    out, connections = ResultsDir(tmp_path), workloads.get("connections")
    with pytest.raises(TypeError, match="workload connections has no parameter bufer"):
        CampaignSettings([], out, workload=connections, params={"bufer": 4096})
    with pytest.raises(TypeError, match="workload sleep has no parameter buffer"):
        CampaignSettings([], out, params={"buffer": 4096})  # another workload's


def test_the_parameters_not_given_take_their_defaults(tmp_path):
    out, connections = ResultsDir(tmp_path), workloads.get("connections")
    assert CampaignSettings([], out, workload=connections).params == connections.parse_parameters({})
    assert CampaignSettings([], out, workload=connections, params={"buffer": 4096}).params == {"buffer": 4096}
    assert CampaignSettings([], out).params == {}  # sleep has none


@pytest.mark.parametrize("bad", [{"jobs": 0}, {"interval": 0.0}, {"interval": -0.05}])
def test_jobs_and_interval_are_checked_once_for_both_campaigns(tmp_path, bad):
    with pytest.raises(ValueError):
        CampaignSettings([], ResultsDir(tmp_path), **bad)


def test_the_options_are_frozen(tmp_path):
    campaign = CampaignSettings([], ResultsDir(tmp_path), label="here")
    with pytest.raises(dataclasses.FrozenInstanceError):
        campaign.label = "there"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        SweepOptions(campaign, [1], SleepSpec(1.0), 1).ns = [2]  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        CapacityOptions(campaign, [1 << 20]).fresh = True  # type: ignore[misc]
    relabelled = dataclasses.replace(campaign, label="there")  # a new one, checked again
    assert (campaign.label, relabelled.label) == ("here", "there")


def test_a_runs_settings_take_the_shared_part_and_keep_the_spec_as_it_is(tmp_path):
    connections = workloads.get("connections")
    campaign = CampaignSettings(
        [], ResultsDir(tmp_path), workload=connections, params={"buffer": 4096}, futex_hash=1024
    )
    spec = RunSpec(timeout=5.0, memory_cap=1 << 20)
    settings = campaign.settings(spec, {"GOGC": "50"})
    assert settings.spec is spec
    assert (settings.futex_hash, settings.env_override) == (1024, {"GOGC": "50"})
    assert settings.params == {"buffer": 4096}
    assert campaign.settings(spec).env_override is None  # a capacity probe's: no --env
