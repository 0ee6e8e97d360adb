"""Where memrun keeps things: it is a checkout-based suite, so paths hang off the repository root."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TASKS_DIR = Path(os.environ.get("MEMRUN_TASKS", ROOT / "tasks"))
BUILD_DIR = Path(os.environ.get("MEMRUN_BUILD", ROOT / "build"))
