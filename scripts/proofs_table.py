"""Write tasks/README.md's table of `ready` proofs from the manifests (`[variant.proof]`).

  .venv/bin/python scripts/proofs_table.py           # rewrite the block between the markers
  .venv/bin/python scripts/proofs_table.py --check   # exit 1 if the committed block is stale

The block is runner.show.tables.proofs.block(): one row per distinct proof, in the manifests'
order. tests/show/tables/test_proofs.py fails when the committed block differs from it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner import tasks
from runner.paths import TASKS_DIR
from runner.show.tables import proofs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the block is fresh")
    args = parser.parse_args()
    page = TASKS_DIR / "README.md"
    text = page.read_text()
    try:
        fresh = proofs.filled(text, tasks.load_all().values())
    except (proofs.StaleError, tasks.ManifestError) as e:
        print(f"{page}: {e}", file=sys.stderr)
        return 2
    if fresh == text:
        print(f"{page}: the proofs table is fresh")
        return 0
    if args.check:
        print(f"{page}: the proofs table is stale: run scripts/proofs_table.py", file=sys.stderr)
        return 1
    page.write_text(fresh)
    print(f"{page}: proofs table written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
