"""runner.hostinfo.git_revision: the checkout's own git, unless the caller was told the answer
(a guest of runner.vm runs the host's checkout and gets the host's revision)."""

from __future__ import annotations

from runner import hostinfo


def test_a_told_revision_is_taken_as_it_is_and_git_answers_otherwise(monkeypatch):
    monkeypatch.delenv(hostinfo.REVISION_ENV, raising=False)
    own = hostinfo.git_revision()
    assert own is not None and len(own.removesuffix("-dirty")) == 40, own
    monkeypatch.setenv(hostinfo.REVISION_ENV, "0123abcd-dirty")
    assert hostinfo.git_revision() == "0123abcd-dirty"
