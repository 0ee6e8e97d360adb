"""The limits journal: raised sysctls (and module parameters, by absolute path) written down
before they change, so a SIGKILLed memrun's raised values are put back by the next memrun command
instead of staying raised forever.

One JSON file, root only, written atomically and fsynced before the first sysctl is written:
{"owner": {pid, start_ticks, command, started_at}, "sysctls": [{"name", "path", "old", "new"}]}.
The owner removes it after restoring; anyone else restores from it only once the owner is dead.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runner.limits.host import PROC_SYS
from runner.state import STATE_DIR, Owner, write_atomically

JOURNAL_NAME = "limits-journal.json"


def journal_path() -> Path:
    return STATE_DIR / JOURNAL_NAME


@dataclass(frozen=True)
class Entry:
    """One sysctl as it was before memrun raised it."""

    name: str  # e.g. "vm.max_map_count"
    path: str  # relative to /proc/sys, e.g. "vm/max_map_count", or absolute (a module's parameter)
    old: int
    new: int


def record(entries: list[Entry]) -> None:
    """Write the journal (before any sysctl changes): who is raising what, from which value. What
    this process journaled before and has not cleared stays in it (a measuring command holds page
    reporting back while a sweep in it raises thread limits: runner.limits.page_reporting)."""
    if not entries:
        return
    STATE_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = {"owner": Owner.me().to_dict(), "sysctls": [e.__dict__ for e in _mine() + entries]}
    write_atomically(journal_path(), json.dumps(data, indent=1) + "\n")


def _mine() -> list[Entry]:
    found = read()
    if found is None or found[0].pid != Owner.me().pid:
        return []
    return found[1]


def clear(entries: list[Entry] | None = None) -> None:
    """Remove the journal, or only `entries` from this process's own (once they are restored)."""
    if entries is not None:
        left = [e for e in _mine() if e not in entries]
        if left:
            data = {"owner": Owner.me().to_dict(), "sysctls": [e.__dict__ for e in left]}
            write_atomically(journal_path(), json.dumps(data, indent=1) + "\n")
            return
    with contextlib.suppress(FileNotFoundError):
        journal_path().unlink()


def read() -> tuple[Owner, list[Entry]] | None:
    """The journal, or None when there is none; an unreadable one is reported as owned by nobody."""
    try:
        data = json.loads(journal_path().read_text())
        owner = Owner.from_dict(data["owner"])
        entries = [Entry(**e) for e in data["sysctls"]]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return Owner(0, None, "unreadable journal", "?"), []
    return owner, entries


def restore(entries: list[Entry]) -> list[str]:
    """Write every old value back (reverse order, past failures); returns one phrase per sysctl."""
    done = []
    for e in reversed(entries):
        path = PROC_SYS / e.path
        try:
            now = int(path.read_text().split()[0])
            path.write_text(f"{e.old}\n")
            done.append(f"{e.name} {now} -> {e.old}")
        except (OSError, ValueError, IndexError) as err:
            done.append(f"{e.name}: could not restore {e.old} ({err})")
    return done


def recover(log: Callable[[str], None], force: bool = False) -> bool:
    """Restore what a dead memrun left raised, say so in one line, remove the journal.

    A live owner's journal is left alone (it is mid-sweep and will restore itself) unless
    force, which `memrun limits --restore` never sets for a live owner either: it reports it.
    Returns True when something was restored.
    """
    found = read()
    if found is None:
        return False
    owner, entries = found
    if owner.pid and owner.alive() and not force:
        return False
    lines = restore(entries)
    clear()
    log(
        f"memrun: restored kernel limits left raised by memrun {owner.describe()}, which is gone: "
        + ("; ".join(lines) or "nothing to restore")
    )
    return True


class Held(RuntimeError):
    """The memrun that raised the limits is still running: it puts them back itself."""


class NotRoot(PermissionError):
    """Putting kernel limits back writes /proc/sys: root only."""


def put_back(log: Callable[[str], None]) -> bool:
    """`memrun limits --restore`: put back what a memrun killed mid-sweep left raised, from its
    journal; False when there is nothing to put back. Held when its owner still runs (it restores
    them as it ends: stop it with Ctrl-C or kill, not kill -9), NotRoot unless root."""
    found = read()
    if found is None:
        return False
    owner, _entries = found
    if owner.pid and owner.alive():
        raise Held(
            f"memrun {owner.describe()} is running and holds the raised limits; it restores them "
            "when it ends (stop it with Ctrl-C or kill, not kill -9)"
        )
    if os.geteuid() != 0:
        raise NotRoot("restoring kernel limits needs root (it writes /proc/sys)")
    recover(log=log, force=True)
    return True
