"""runner.tasks.install: only what dpkg does not list is asked of apt."""

from __future__ import annotations

import shutil

from runner.tasks.install import not_installed
from tests.conftest import require


def test_installed_packages_are_not_asked_for_again():
    require(shutil.which("dpkg-query") is not None, "dpkg-query (Debian)")
    # python3 runs this suite's tooling on Debian; the second name is no package at all
    assert not_installed(["python3", "memrun-no-such-package"]) == ["memrun-no-such-package"]
    assert not_installed([]) == []
