"""Where memrun keeps things: it is a checkout-based suite, so paths hang off the repository root."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TASKS_DIR = Path(os.environ.get("MEMRUN_TASKS", ROOT / "tasks")).resolve()
BUILD_DIR = Path(os.environ.get("MEMRUN_BUILD", ROOT / "build")).resolve()
# Toolchains installed by `memrun setup` from npm and Maven land inside the checkout (git-ignored),
# never in the user's global npm prefix or ~/.m2.
NPM_PREFIX = BUILD_DIR / "npm"
MAVEN_REPO = BUILD_DIR / "m2"


def locations() -> dict[str, str]:
    """The placeholders that name places, for manifests: where the interpreter and installs live."""
    return {
        "python": sys.executable,
        "python_prefix": sys.prefix,
        "npm_prefix": str(NPM_PREFIX),
        "maven_repo": str(MAVEN_REPO),
    }
