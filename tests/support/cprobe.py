"""The C probes (tests/probes/*.c): programs of exactly known cost, compiled by the tests that use
them, once per content (a digest of the source names the binary), with the C compiler found here."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.support.process import PROBES, require


def build(name: str) -> Path:
    """tests/probes/NAME.c compiled (cached by its content); a missing compiler skips (fails under CI)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    require(cc is not None, "a C compiler (cc) for the C probes")
    source = PROBES / f"{name}.c"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    out = Path(tempfile.gettempdir()) / f"memrun-probes-{os.getuid()}" / f"{name}-{digest}"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        part = out.with_suffix(f".{os.getpid()}")
        subprocess.run([str(cc), "-O2", "-Wall", "-o", str(part), str(source)], check=True)
        part.replace(out)
    return out
