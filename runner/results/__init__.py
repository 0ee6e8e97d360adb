"""Stored results: the typed run record (record), the append-only JSONL store (store), reading it
back (load), and tables over them (summary: the only part that needs pandas, so import it as
runner.results.summary)."""

from runner.results.load import capacity_by_label, latest_capacity, load_capacity, load_records, load_sweeps
from runner.results.record import METRICS, RunRecord
from runner.results.store import ResultsDir, ResultsError, ResultsWriteError, TornRecordWarning, read_jsonl

__all__ = [
    "METRICS",
    "ResultsDir",
    "ResultsError",
    "ResultsWriteError",
    "RunRecord",
    "TornRecordWarning",
    "capacity_by_label",
    "latest_capacity",
    "load_capacity",
    "load_records",
    "load_sweeps",
    "read_jsonl",
]
