"""runner.show.beside: what ran beside a run and what memrun touched before its fork, in words."""

from __future__ import annotations

from runner.results import RunRecord
from runner.show.beside import beside_lines
from tests.support.runs import result


def _record(**more) -> RunRecord:  # type: ignore[no-untyped-def]
    res = result(ready_n=1000, ready_s=0.5, wall_s=10.6)
    return RunRecord("v", 1000, "valid", sleep_s=10.0, result=res, workload="sleep", label="here", **more)


def test_the_touch_before_the_fork_is_told_alone_or_beside_and_older_rows_say_nothing():
    warmed = {"bytes": 1536 << 20, "s": 0.61}
    alone = beside_lines(_record(beside=[], warmed=warmed))
    assert alone[0] == "  beside    nothing: it ran alone"
    assert alone[1].startswith("  warmed    1,536 MiB touched and given back before its fork (0.6 s)")
    other = {"run_id": "b", "variant": "w", "n": 10, "phase": "hold", "from_s": 0.0, "to_s": 5.0}
    lines = beside_lines(_record(beside=[other], warmed=warmed))
    assert lines[0].startswith("  warmed    1,536 MiB") and "w N=10 holding 0.0–5.0 s" in lines[1]
    assert beside_lines(_record()) == [] and beside_lines(_record(beside=[])) == [
        "  beside    nothing: it ran alone"
    ]
    stored = RunRecord.from_json(_record(beside=[], warmed=warmed).to_json())
    assert stored.warmed == warmed and "warmed" not in _record().to_json()
