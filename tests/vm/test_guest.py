"""runner.vm.guest around the boot: memrun's bytecode and C helpers are made before each boot; a guest that
dies before its command stored anything (no exit status, virtme-ng's 255) is booted once more and
said so; a second such death is an error that quotes the guest's console; a guest that stored
something is joined, whatever its exit.

The boot itself is replaced here by a stand-in that writes what a guest would (its console, its
records in the shared results folder): the real boots are in test_kernel.py."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from runner.limits import futex
from runner.measure import launcher
from runner.results import ResultsDir
from runner.vm import boot, guest, kernels
from runner.workloads.connections import client as connections_client
from runner.workloads.web import client as web_client


@pytest.fixture
def boots(tmp_path, monkeypatch):
    """The boots made, each a list the stand-in pops its outcome from: (exit, store something)."""
    image = tmp_path / "vmlinuz"
    image.write_text("")
    monkeypatch.setattr(guest, "BUILD_DIR", tmp_path / "build")
    monkeypatch.setattr(boot, "LOGS", tmp_path / "logs")
    monkeypatch.setattr(boot, "missing_tools", lambda: [])
    monkeypatch.setattr(boot, "kvm_usable", lambda *a: False)
    monkeypatch.setattr(kernels, "resolve", lambda spec: "linux-image-6.12.1+deb12-amd64")
    monkeypatch.setattr(
        kernels, "fetch", lambda package: kernels.Kernel(package, "6.12.1+deb12-amd64", image)
    )
    package = tmp_path / "package"
    package.mkdir()
    (package / "module.py").write_text("X = 1\n")
    monkeypatch.setattr(guest, "PACKAGE", package)
    outcomes: list[tuple[int, bool]] = []
    made: list[Path] = []
    helpers = {
        (launcher, "ensure_launcher"),
        (futex, "ensure_preload"),
        (connections_client, "ensure_client"),
        (web_client, "ensure_client"),
    }
    built: set[tuple[object, str]] = set()
    for module, name in helpers:
        monkeypatch.setattr(module, name, lambda m=module, n=name: built.add((m, n)))

    def fake_run(g: boot.Guest, command: str, timeout=None, capture=False, console=None):
        # memrun's bytecode is there before the guest, which reads the checkout read-only
        assert Path(importlib.util.cache_from_source(str(package / "module.py"))).exists()
        # and memrun's C helpers (the launcher every run starts from...), which a guest would
        # otherwise compile under TCG on every boot, its writes lost with it
        assert built == helpers, helpers - built
        code, store = outcomes.pop(0)
        assert console is not None
        console.write_text(f"boot {len(made) + 1}\nKernel panic - not syncing: test\n")
        made.append(console)
        if store:
            ResultsDir(g.share / "results").add_sweep({"event": "start", "sweep_id": "s1"})
        return boot.subprocess.CompletedProcess([], code, None, None)

    monkeypatch.setattr(boot, "run", fake_run)
    return outcomes, made


def _run(tmp_path: Path, said: list[str]) -> guest.GuestRun:
    out = ResultsDir(tmp_path / "res")
    out.check_writable()
    return guest.run("6.12", "sweep", ["-r", "fake"], out, "box", 1 << 30, said.append)


def test_a_guest_that_died_booting_is_booted_once_more_and_said_so(tmp_path, boots):
    outcomes, made = boots
    outcomes += [(boot.NO_STATUS, False), (0, True)]
    said: list[str] = []
    done = _run(tmp_path, said)
    assert len(made) == 2 and made[0] != made[1] and all(p.exists() for p in made)
    (line,) = [x for x in said if "once more" in x]
    assert "stopped before `sweep` stored anything" in line and str(made[0]) in line
    assert done.returncode == 0 and done.label == "box@6.12.1+deb12-amd64"
    starts = [json.loads(x) for x in (tmp_path / "res" / "sweeps.jsonl").read_text().splitlines()]
    assert [s["sweep_id"] for s in starts] == ["s1"]


def test_a_second_death_is_an_error_quoting_the_console(tmp_path, boots):
    outcomes, made = boots
    outcomes += [(boot.NO_STATUS, False), (boot.NO_STATUS, False)]
    with pytest.raises(boot.VmError) as e:
        _run(tmp_path, [])
    assert len(made) == 2
    assert "ran no sweep (exit 255)" in str(e.value) and "Kernel panic" in str(e.value)
    assert str(made[1]) in str(e.value)


@pytest.mark.parametrize("code", [1, 2, -9])
def test_a_guest_that_ended_with_a_status_is_not_booted_again(tmp_path, boots, code):
    """An exit status means the command ran in the guest and failed: booting again would only
    repeat it."""
    outcomes, made = boots
    outcomes += [(code, False)]
    with pytest.raises(boot.VmError, match=f"exit {code}"):
        _run(tmp_path, [])
    assert len(made) == 1


def test_a_guest_that_stored_something_is_joined_whatever_its_exit(tmp_path, boots):
    outcomes, made = boots
    outcomes += [(boot.NO_STATUS, True)]
    done = _run(tmp_path, [])
    assert len(made) == 1 and done.returncode == boot.NO_STATUS
    assert (tmp_path / "res" / "sweeps.jsonl").exists()


def test_the_guest_gets_the_typed_arguments_without_those_it_sets_itself():
    """`sweep --kernel` passes on what the user typed (runner.cli.app.KeepsArgs), less --kernel,
    --out, --label, --wait and --raise-limits, in either spelling (`--out X`, `--out=X`)."""
    import click
    from click.testing import CliRunner

    from runner.cli.app import KeepsArgs, given_args

    seen: list[list[str]] = []

    @click.command(cls=KeepsArgs)
    @click.option("-r", multiple=True)
    @click.option("--n")
    @click.option("--kernel", multiple=True)
    @click.option("--out")
    @click.option("--label")
    @click.option("--wait", is_flag=True)
    @click.option("--raise-limits", is_flag=True)
    def sweep(**_: object) -> None:
        seen.append(guest.guest_args(given_args()))

    typed = ["-r", "go", "--kernel", "6.1", "--n=1,1e4", "--out=res", "--label", "a b", "--wait"]
    done = CliRunner().invoke(sweep, [*typed, "--raise-limits", "--kernel=6.12", "-r", "rust-tokio"])
    assert done.exit_code == 0, done.output
    assert seen == [["-r", "go", "--n=1,1e4", "-r", "rust-tokio"]]


def test_a_guests_default_memory_holds_still_while_free_memory_moves(monkeypatch):
    """The guest's RAM is part of the machine its runs record: the default is the largest power of
    two within the host's RAM less the reserve, whatever is free, so that the next --kernel call of
    a label is the same machine (beside a test suite one boot found 8 GiB free enough, the next
    16). A cap given is taken as it is."""
    from runner.limits import host

    sizes = []
    for free in (5.0, 19.5, 20.0):
        limits = {"mem_total": 24 << 30, "mem_available": int(free * (1 << 30))}
        monkeypatch.setattr(host, "read_limits", lambda limits=limits: limits)
        sizes.append(guest.memory_for(None))
    assert sizes == [16 << 30] * 3
    monkeypatch.setattr(host, "read_limits", lambda: {"mem_total": 12 << 30, "mem_available": 1 << 30})
    assert guest.memory_for(None) == 8 << 30  # 12 GiB less 1.2: 10.8, so 8
    assert guest.memory_for(3 << 30 | 5) == 3 << 30 | 5
