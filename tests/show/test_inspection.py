"""runner.show.inspection, what `memrun inspect` tells, called as a library (as `memrun derive`
calls it): the stories and figures of chosen runs, the overlap evidence, and one line when
nothing matches. The command line's own tests are in tests/show/test_story.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.results import ResultsDir, RunRecord
from runner.show.inspection import InspectError, overlap_evidence, stories
from tests.support.runs import result

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "tests" / "fixtures" / "reference-10"  # the first reference sweep, frozen


def _told(*args, **kw) -> list[str]:  # type: ignore[no-untyped-def]
    return list(stories(*args, **kw))


def test_one_run_is_told_with_its_figure_written_first(tmp_path):
    said: list[str] = []
    texts = _told(REFERENCE, (), None, "4858b5bedc86", tmp_path, "sleep", said.append)
    assert len(texts) == 1 and texts[0].startswith("rust-threads N=100,000: failed (thread-limit)")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "rust-threads-n100000-4858b5bedc86.png",
        "rust-threads-n100000-4858b5bedc86.svg",
    ]
    assert said == []


def test_each_story_after_the_first_opens_with_a_blank_line(tmp_path):
    texts = _told(REFERENCE, ("rust-threads",), 100_000, None, tmp_path, "sleep", print)
    assert len(texts) > 1
    assert not texts[0].startswith("\n") and all(t.startswith("\n") for t in texts[1:])


def test_nothing_to_tell_is_one_line_or_an_error_naming_what_was_asked(tmp_path):
    d = ResultsDir(tmp_path / "res")
    d.check_writable()
    d.add_sweep({"sweep_id": "s1", "event": "start", "cpus": 2})
    d.add_run(
        RunRecord(variant="go", n=1, verdict="valid", code="ok", sweep_id="s1", run_id="g", result=result())
    )
    figs = tmp_path / "figs"
    assert _told(d.path, (), None, None, figs, "sleep", print) == [
        f"every run of the latest sleep sweep in {d.path} is valid: nothing to inspect"
    ]
    assert not figs.exists(), "no figure, no folder"
    with pytest.raises(InspectError, match=r"^no run nope in "):
        _told(d.path, (), None, "nope", figs, "sleep", print)
    with pytest.raises(InspectError, match=r"^no runs matching -r java --n 5 in "):
        _told(d.path, ("java",), 5, None, figs, "sleep", print)
    with pytest.raises(InspectError, match=r"^no connections runs in .* \(--workload chooses another\)$"):
        _told(d.path, (), None, None, figs, "connections", print)


def test_overlap_evidence_lists_the_valid_runs_under_a_header():
    text = overlap_evidence(REFERENCE, ("go",), None, "sleep", print)
    head, *rows = text.splitlines()
    assert head.split()[:3] == ["variant", "N", "ready"]
    assert rows and all(row.startswith("go ") for row in rows)
    with pytest.raises(InspectError, match="no valid sweep runs matching"):
        overlap_evidence(REFERENCE, ("nosuch",), None, "sleep", print)
