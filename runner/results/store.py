"""The results store: one JSON line per run, one JSON line of metadata per sweep (pyperf-style split).

A results directory holds `runs.jsonl` (appended and fsynced as each run finishes, so a crash
loses nothing), `sweeps.jsonl` (host, limits, versions, command line of each sweep) and
`timelines.jsonl` (each run's memory timeline, kept apart so the run table stays small).
Several directories, from several sweeps or machines, load together into one table.

Crash safety. An append that fails (disk full, I/O error) is undone: the file is cut back to its
length before the append, so a failed write never leaves half a line. A crash or power cut in the
middle of an append can still leave one torn last line; readers leave it out with a
TornRecordWarning (the library never prints), and a sweep moves it aside into
`<file>.torn-<UTC time>` before it appends anything (`ResultsDir.repair`). A corrupt line anywhere
else is a ResultsError: nothing a crash leaves, so nothing to guess about.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import threading
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.results import migrate
from runner.results.disk import Disk, disk_of
from runner.results.record import RunRecord

RUNS = "runs.jsonl"
SWEEPS = "sweeps.jsonl"
TIMELINES = "timelines.jsonl"
CAPACITY = "capacity.jsonl"  # one result per (variant, budget) of `memrun capacity`
# The files whose records carry a format and are read through runner.results.migrate.
_KIND = {RUNS: "run", SWEEPS: "sweep", CAPACITY: "capacity"}


class ResultsError(ValueError):
    """A results file is missing or corrupt; the message names the file and line."""


class ResultsWriteError(OSError):
    """Appending to a results file failed (disk full, quota, I/O error); the file was cut back to
    where it was, so every record before stays whole. str(): what failed, on which disk, where."""

    def __init__(self, cause: OSError, path: Path) -> None:
        super().__init__(cause.errno, cause.strerror, str(path))
        self.path = Path(path)

    @property
    def disk(self) -> Disk:
        """The disk as it is now: after the failed append was cut back (and a run's timeline with it)."""
        return disk_of(self.path.parent)

    @property
    def no_space(self) -> bool:
        return self.errno in (errno.ENOSPC, errno.EDQUOT)

    @property
    def remedy(self) -> str:
        if self.no_space:
            return "free space"
        if self.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return "make it writable"
        return "fix the disk"

    def __str__(self) -> str:
        what = {errno.ENOSPC: "no space left", errno.EDQUOT: "disk quota exceeded"}.get(
            self.errno or 0, (self.strerror or "write failed").lower()
        )
        return f"{what} on {self.disk} writing {self.path}"


class TornRecordWarning(UserWarning):
    """A results file's last line is torn (a crash or full disk mid-write): it was left out."""

    def __init__(self, path: Path, line: int) -> None:
        self.path, self.line = Path(path), line
        super().__init__(
            f"{path}:{line}: torn last record (a crash or full disk mid-write?) left out; "
            "memrun sweep --resume moves it aside"
        )


@dataclass(frozen=True)
class TornTail:
    """The torn last record of a file: from byte `offset` (just after the last whole line) to the end."""

    path: Path
    line: int  # its line number, from 1
    offset: int
    size: int  # bytes from offset to the end of the file
    side: Path | None = None  # where repair() moved those bytes


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _cut_back(fd: int, size: int) -> None:
    """Undo a failed append. Cutting a file shorter needs no free space."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError:
        pass  # the next reader sees a torn last line, which it leaves out and a sweep moves aside


def _write_new(path: Path, data: bytes) -> None:
    """Write a new file whole and fsync it (and its directory entry); on any failure remove it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as e:
        raise ResultsWriteError(e, path) from e
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        _fsync_dir(path.parent)
    except BaseException as e:
        os.close(fd)
        path.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise ResultsWriteError(e, path) from e
        raise
    os.close(fd)


def _append_bytes(path: Path, data: bytes) -> int:
    """Append data and fsync; on failure cut the file back to its old length (removing it if this
    call created it) and raise ResultsWriteError. Returns the file's length before the append.

    Ctrl-C or SIGTERM (a KeyboardInterrupt) in the middle of the bytes cuts back too, so the end
    record an interrupted sweep still appends never lands behind half a line."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    except OSError as e:
        raise ResultsWriteError(e, path) from e
    try:
        size = os.fstat(fd).st_size
        created = size == 0
        view = memoryview(data)
        try:
            while view:  # a nearly full disk takes part of a write, then refuses the rest
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            if created:  # a new file survives a power cut only once its directory entry does
                _fsync_dir(path.parent)
        except OSError as e:
            _cut_back(fd, size)
            if created:
                path.unlink(missing_ok=True)
            raise ResultsWriteError(e, path) from e
        except BaseException:
            if view:  # interrupted before the whole line was written
                _cut_back(fd, size)
            raise
        return size
    finally:
        os.close(fd)


def _append(path: Path, record: dict[str, Any]) -> int:
    line = json.dumps(record, separators=(",", ":"), default=str) + "\n"
    return _append_bytes(path, line.encode())


def _truncate(path: Path, size: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise ResultsWriteError(e, path) from e


@dataclass
class ResultsDir:
    """Append-only writer for one results directory."""

    path: Path
    runs_added: int = field(default=0, init=False)  # run rows this writer stored
    # Appends come from several threads once runs are in flight side by side (runner.scheduling):
    # one at a time, so a run's timeline and its row stay together and a cut-back is exact.
    _writing: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.path = Path(self.path)

    def check_writable(self) -> None:
        """Fail early, before any run, when the directory cannot be written."""
        if self.path.exists() and not self.path.is_dir():
            raise ResultsError(f"{self.path} exists and is not a directory")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ResultsError(f"cannot create {self.path}: {e.strerror}") from None
        if not os.access(self.path, os.W_OK | os.X_OK):
            raise ResultsError(f"{self.path} is not writable")
        for name in (RUNS, SWEEPS, TIMELINES):
            f = self.path / name
            if f.exists() and not os.access(f, os.W_OK):
                raise ResultsError(f"{f} is not writable")

    def repair(self) -> list[TornTail]:
        """Make every file end with a whole line before anything is appended to it: a torn last
        record is moved aside into `<file>.torn-<UTC time>` (kept, never deleted) and the file cut
        back to its last whole line; a whole last line without its newline gets one. Returns what
        was moved. A ResultsWriteError when the side file cannot be written (the file is untouched)."""
        moved = []
        for name in (RUNS, SWEEPS, TIMELINES):
            path = self.path / name
            if not path.exists():
                continue
            try:
                data = path.read_bytes()
            except OSError as e:
                raise ResultsError(f"{path}: cannot read: {e.strerror}") from None
            torn = _torn_tail(path, data)
            if torn is None:
                if data and not data.endswith(b"\n"):
                    _append_bytes(path, b"\n")
                continue
            side = _side_file(path)
            _write_new(side, data[torn.offset :])
            _truncate(path, torn.offset)  # only once the torn bytes are safe in the side file
            moved.append(TornTail(torn.path, torn.line, torn.offset, torn.size, side))
        return moved

    def add_sweep(self, meta: dict[str, Any]) -> None:
        with self._writing:
            _append(self.path / SWEEPS, migrate.stamped(meta))

    def add_limits_raised(self, sweep_id: str, limits: dict[str, Any]) -> None:
        """The limits a sweep's or capacity search's runs had after raising them: load_sweeps
        merges this over the start record's, so `inspect` draws what the runs had."""
        self.add_sweep({"sweep_id": sweep_id, "event": "limits-raised", "limits": limits})

    def add_run(self, record: RunRecord | Mapping[str, Any], timeline: list[Any] | None = None) -> None:
        """Append one run (and its timeline first, so a run row never points at nothing). When the
        run row cannot be written, its timeline is taken back out: a failed run leaves nothing."""
        row = record.to_json() if isinstance(record, RunRecord) else dict(record)
        with self._writing:
            before = None
            if timeline is not None:
                before = _append(self.path / TIMELINES, {"run_id": row["run_id"], "timeline": timeline})
            try:
                _append(self.path / RUNS, migrate.stamped(row))
            except ResultsWriteError:
                if before is not None:
                    with contextlib.suppress(ResultsWriteError):  # else: a whole line, with no run row
                        _truncate(self.path / TIMELINES, before)
                raise
            self.runs_added += 1

    def add_capacity(self, result: dict[str, Any]) -> None:
        with self._writing:
            _append(self.path / CAPACITY, migrate.stamped(result))

    def existing_capacity(self) -> list[dict[str, Any]]:
        return read_jsonl(self.path / CAPACITY) if (self.path / CAPACITY).exists() else []

    def existing_rows(self) -> list[dict[str, Any]]:
        """The stored run rows, for --resume: a torn last row is left out without a warning (its
        cell is missing, so it runs again; repair() moves the torn bytes aside)."""
        path = self.path / RUNS
        return [row for _, row in _read(path)[0]] if path.exists() else []


def _side_file(path: Path) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    side = path.with_name(f"{path.name}.torn-{stamp}")
    k = 1
    while side.exists():
        k += 1
        side = path.with_name(f"{path.name}.torn-{stamp}-{k}")
    return side


def _parse(raw: bytes) -> tuple[Any, str | None]:
    """One line's value, or None and why it does not parse."""
    try:
        return json.loads(raw.decode()), None
    except UnicodeDecodeError:
        return None, "not UTF-8"
    except json.JSONDecodeError as e:
        return None, e.msg


def _last_line(data: bytes) -> tuple[int, int] | None:
    """(start, end) offsets of the last non-blank line of data, or None when all of it is blank."""
    end = len(data.rstrip())
    if not end:
        return None
    return data.rfind(b"\n", 0, end) + 1, end


def _torn_tail(path: Path, data: bytes) -> TornTail | None:
    """The file's last non-blank line when it does not parse (what a crash mid-append leaves)."""
    last = _last_line(data)
    if last is None:
        return None
    start, end = last
    if _parse(data[start:end])[1] is None:
        return None
    return TornTail(Path(path), data.count(b"\n", 0, start) + 1, start, len(data) - start)


def _read(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], TornTail | None]:
    """Every record of a JSONL file with its line number, and the torn last line if there is one.
    Any other bad line is a ResultsError naming file and line. Records of runs, sweeps and
    capacity files come in the current format, whatever format they were written in
    (runner.results.migrate)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror}") from None
    torn = _torn_tail(path, data)
    body = data if torn is None else data[: torn.offset]
    out = []
    for i, raw in enumerate(body.split(b"\n"), 1):
        if not raw.strip():
            continue
        record, error = _parse(raw)
        if error is not None:
            raise ResultsError(f"{path}:{i}: corrupt or truncated record ({error})")
        if not isinstance(record, dict):
            raise ResultsError(f"{path}:{i}: not a JSON object")
        if kind := _KIND.get(Path(path).name):
            try:
                record = migrate.upgrade(kind, record)
            except migrate.NewerFormat as e:
                raise ResultsError(f"{path}:{i}: {e}") from None
        out.append((i, record))
    return out, torn


def _records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    records, torn = _read(path)
    if torn is not None:
        warnings.warn(TornRecordWarning(path, torn.line), stacklevel=3)
    return records


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every record of a JSONL file; a bad line is a ResultsError naming file and line, except a
    torn last line, which is left out with a TornRecordWarning."""
    return [record for _, record in _records(path)]
