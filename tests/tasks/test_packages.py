"""runner.tasks.packages: a package that provides no tool (headers, libraries) decides readiness.

A stand-in dpkg-query and apt-get on PATH play a machine that lacks some packages, so the test
sees what a fresh machine sees: the folder is not ready, doctor names the package, setup asks apt
for exactly it, and the folder is ready afterwards.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner import tasks
from runner.cli import main
from runner.tasks import install, packages
from tests.support.process import require

DPKG_QUERY = """#!/bin/sh
# dpkg-query -W -f=FORMAT PKG...: one line per package listed in $STATE, an error for the others
shift 2
rc=0
for p in "$@"; do
  if grep -qx "$p" "$STATE"; then echo "$p install ok installed"
  else echo "dpkg-query: no packages found matching $p" >&2; rc=1; fi
done
exit $rc
"""

APT_GET = """#!/bin/sh
# records every call; `install -y -q PKG...` lists the packages as installed in $STATE
echo "$*" >> "$STATE.apt"
[ "$1" = install ] || exit 0
for p in "$@"; do case "$p" in -*|install) ;; *) echo "$p" >> "$STATE" ;; esac; done
"""


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A PATH with the stand-ins first; returns the state file listing the installed packages."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("dpkg-query", DPKG_QUERY), ("apt-get", APT_GET)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(stat.S_IRWXU)
    state = tmp_path / "installed"
    state.write_text("")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("STATE", str(state))
    return state


def _apt_calls(state: Path) -> list[str]:
    log = Path(f"{state}.apt")
    return log.read_text().splitlines() if log.exists() else []


def _every_package_but(state: Path, *absent: str) -> None:
    names = {p for tf in tasks.folders(tasks.load_all().values()) for p in tf.apt}
    state.write_text("".join(f"{p}\n" for p in sorted(names - set(absent))))


def test_a_missing_header_package_makes_the_folder_not_ready_and_doctor_names_it(machine):
    _every_package_but(machine, "libasio-dev")
    variant = tasks.load_all()["cpp-asio"]
    require(tasks.readiness(variant).tools["cxx"].path is not None, "a C++ compiler")
    r = tasks.readiness(variant)
    assert not r.usable
    assert r.problems == ["Debian package libasio-dev not installed (the build needs its files)"]
    out = CliRunner().invoke(main, ["doctor", "cpp-asio"])
    assert out.exit_code == 1
    assert "cpp-asio" in out.output and "MISSING" in out.output and "libasio-dev" in out.output
    assert "apt-get install -y libasio-dev g++ make" in out.output  # what setup runs, shown


def test_setup_installs_the_missing_package_and_only_it(machine):
    require(os.geteuid() == 0, "root (setup installs Debian packages only as root)")
    _every_package_but(machine, "libasio-dev")
    variant = tasks.load_all()["cpp-asio"]
    assert install.install([variant], log=lambda _: None) == []
    assert _apt_calls(machine) == ["update -q", "install -y -q libasio-dev"]  # g++ and make are there
    assert tasks.readiness(variant).usable


def test_a_package_that_provides_a_found_tool_is_not_asked_of_dpkg(machine):
    # go here may come from go.dev's tarball rather than golang-go: the tool found is what counts
    _every_package_but(machine, "golang-go")
    variant = tasks.load_all()["go"]
    require(tasks.readiness(variant).tools["go"].path is not None, "go")
    assert tasks.readiness(variant).usable


def test_every_manifest_names_the_files_its_build_needs_by_package(machine):
    # Nothing installed: every folder's non-tool packages are reported, each by name, and each
    # package a tool claims is one its manifest installs.
    machine.write_text("")
    for tf in tasks.folders(tasks.load_all().values()):
        assert packages.tool_packages(tf) <= set(tf.apt), tf.name
        problems = tasks.readiness(tf.variants[0]).problems
        for p in packages.file_packages(tf):
            assert f"Debian package {p} not installed (the build needs its files)" in problems, tf.name
    asio = tasks.load_all()["cpp-asio"].folder
    crystal = tasks.load_all()["crystal"].folder
    assert packages.file_packages(asio) == ["libasio-dev"]
    assert {"libgc-dev", "libevent-dev", "libpcre3-dev"} <= set(packages.file_packages(crystal))


def test_without_dpkg_query_packages_are_not_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dpkg-query at all
    asio = tasks.load_all()["cpp-asio"].folder
    lacking, note = packages.missing(asio)
    assert lacking == [] and note is not None and "libasio-dev" in note


def test_real_dpkg_lists_installed_packages():
    require(shutil.which("dpkg-query") is not None, "dpkg-query (Debian)")
    assert packages.not_installed(["dpkg", "memrun-no-such-package"]) == ["memrun-no-such-package"]
    assert packages.not_installed([]) == []


def test_a_tool_package_must_be_one_the_manifest_installs(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "task.toml").write_text(
        '[task]\ndescription = "x"\napt = ["a"]\n[tools.x]\nfind = ["x"]\npackage = "b"\n'
        '[[build]]\ncommands = [["true"]]\n[[variant]]\nname = "t"\nrun = ["true"]\n'
        'proof = { kind = "counter", how = "a fake" }\nmodel = "async"\n'
    )
    with pytest.raises(tasks.ManifestError, match=r"package 'b' is not in task\.apt"):
        tasks.load_folder(folder)
