"""runner.tasks.proof: what a program's `ready` proves, as its manifest states it, carried to the
runs (the stored record, a chosen version's replacing program) and kept out of measured runs'
environment (the attack's switches)."""

from __future__ import annotations

import pytest

from runner import tasks
from runner.execute import Settings, execute
from runner.inputs import sweep_inputs
from runner.measure import RunSpec
from runner.tasks import chosen, proof
from runner.tasks.registry import Listing
from runner.workload import get as get_workload

# A program that says which attack switches it got: on stderr, beside its `ready N`.
SAYS = (
    "import os, sys, time; print('ready', sys.argv[1], flush=True); "
    "sys.stderr.write(os.environ.get('MEMRUN_TRACE_WAITS', 'unset') "
    "+ os.environ.get('MEMRUN_STALL_MS', '-')); "
    "time.sleep(float(sys.argv[2]))"
)
MANIFEST = f"""\
[task]
description = "says its attack switches"
[tools.python]
find = ["{{python}}"]
[[build]]
commands = [["{{python}}", "-c", "pass"]]
[[variant]]
name = "t"
run = ["{{python}}", "-c", "{SAYS}", "{{n}}", "{{sleep}}"]
proof.kind = "state"
proof.how = "it says so"
model = "async"
[versions.v]
what = "a version"
list = ["true"]
[[versions.v.before]]
version = "2"
run = ["{{python}}", "-c", "{SAYS}", "{{n}}", "{{sleep}}"]
reason = "older versions run another program"
proof = {{ kind = "self-contained", how = "the other program" }}
"""


@pytest.fixture
def folder(tmp_path) -> tasks.TaskFolder:
    (tmp_path / "tasks" / "t").mkdir(parents=True)
    (tmp_path / "tasks" / "t" / "task.toml").write_text(MANIFEST)
    return tasks.load_folder(tmp_path / "tasks" / "t")


def test_the_kinds_and_whether_each_needs_the_rule():
    counter = proof.read({"kind": "counter", "how": " a   count "}, "p")
    alone = proof.read({"kind": "self-contained", "how": "x"}, "p")
    assert (counter.how, counter.needs_rule, counter.label) == ("a count", True, "counter + rule")
    assert (alone.needs_rule, alone.label) == (False, "self-contained")
    assert "which it was (0.40 s ≤ 1 s) (a count)" in counter.says(0.4, 1.0)
    assert "which it was not (1.20 s > 1 s)" in counter.says(1.2, 1.0)
    assert alone.says(1.2, 1.0).startswith("self-contained: no wait could end before `ready`")
    assert "does not know" in proof.told("hope")


@pytest.mark.parametrize(
    ("table", "words"),
    [
        (None, "must be a table"),
        ({"kind": "hope", "how": "x"}, "p.kind must be one of self-contained, counter, state"),
        ({"kind": "counter"}, "p.how is required"),
        ({"kind": "counter", "how": "x", "why": "y"}, "unknown key"),
    ],
)
def test_a_wrong_proof_table_says_what_is_wrong(table, words):
    with pytest.raises(proof.ProofError, match=words):
        proof.read(table, "p")


def test_every_shipped_variant_states_its_proof():
    kinds = {name: v.proof.kind for name, v in tasks.load_all().items() if v.proof}
    assert len(kinds) == len(tasks.load_all())
    assert kinds["node"] == "self-contained" and kinds["go"] == "counter" and kinds["java-virtual"] == "state"


def test_another_workload_has_no_sleep_proof():
    go = tasks.load_all()["go"]
    assert go.proof is not None and go.under(get_workload("connections")).proof is None


def test_a_chosen_version_with_its_own_program_has_that_programs_proof(folder, tmp_path, monkeypatch):
    monkeypatch.setattr(chosen, "BUILD_DIR", tmp_path / "build")
    spec = folder.versions["v"]
    old = chosen.choose(folder.variants[0], spec, "1", Listing(spec, ["1", "3"], {}))
    new = chosen.choose(folder.variants[0], spec, "3", Listing(spec, ["1", "3"], {}))
    assert old.proof is not None and old.proof.kind == "self-contained"
    assert new.proof is not None and new.proof.kind == "state"


def test_sweep_refuses_the_attack_switches():
    for name in proof.ATTACK_ENV:
        with pytest.raises(ValueError, match=f"--env: {name} is the proof attack's switch"):
            sweep_inputs("1", "1", None, (f"{name}=1",))


@pytest.mark.serial
def test_a_measured_run_never_inherits_the_switches_and_stores_its_proof_kind(folder, monkeypatch):
    monkeypatch.setenv(proof.TRACE_ENV, "1")
    monkeypatch.setenv(proof.STALL_ENV, "5")
    ran = execute(folder.variants[0], 1, 0.2, Settings(RunSpec(timeout=30)))
    assert ran.judged.valid, ran.judged.reason
    assert ran.result.stderr_tail == ["unset-"]
    assert ran.record().proof == "state"
    attacked = execute(
        folder.variants[0], 1, 0.2, Settings(RunSpec(timeout=30), env_override={proof.TRACE_ENV: "1"})
    )
    assert attacked.result.stderr_tail == ["1-"]  # only when asked for, as the attack tests do
