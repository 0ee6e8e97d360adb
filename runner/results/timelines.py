"""Read stored timelines back (timelines.jsonl), for inspecting and diagnosing a run after the fact.

They are kept apart from runs.jsonl so the run table stays small; nothing else reads them, so they
are loaded only for the runs asked for. A point is [t, rss, threads, procs, cgroup] in results
written before CPU time was sampled, and [t, rss, threads, procs, cgroup, user_s, sys_s] since:
both load, the missing CPU figures as None.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from runner.measure.result import Sample
from runner.results.store import TIMELINES, ResultsError, read_jsonl


def load_timelines(directory: Path, run_ids: Iterable[str] | None = None) -> dict[str, list[Sample]]:
    """run_id -> its samples, for the runs of one results directory (all, or those named).

    A directory without timelines.jsonl gives {}: the runs still load, only their timeline is
    missing. A point of the wrong shape is a ResultsError naming the file and run.
    """
    path = Path(directory) / TIMELINES
    if not path.exists():
        return {}
    wanted = set(run_ids) if run_ids is not None else None
    out: dict[str, list[Sample]] = {}
    for record in read_jsonl(path):
        run_id = str(record.get("run_id"))
        if wanted is not None and run_id not in wanted:
            continue
        try:
            out[run_id] = [Sample.from_row(point) for point in record.get("timeline") or []]
        except TypeError as e:
            raise ResultsError(f"{path}: run {run_id}: a timeline point of the wrong shape ({e})") from None
    return out
