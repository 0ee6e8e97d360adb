"""Stored results: the typed run record (record), the append-only JSONL store (store), and tables
over them (summary: the only part that needs pandas, so import it as runner.results.summary)."""

from runner.results.record import METRICS, RunRecord
from runner.results.store import (
    ResultsDir,
    ResultsError,
    ResultsWriteError,
    TornRecordWarning,
    latest_capacity,
    load_records,
    load_sweeps,
    read_jsonl,
)

__all__ = [
    "METRICS",
    "ResultsDir",
    "ResultsError",
    "ResultsWriteError",
    "RunRecord",
    "TornRecordWarning",
    "latest_capacity",
    "load_records",
    "load_sweeps",
    "read_jsonl",
]
