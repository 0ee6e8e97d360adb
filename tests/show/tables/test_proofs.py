"""runner.show.tables.proofs and `memrun derive proofs`: tasks/README.md's table of `ready` proofs
is made from the manifests, and `memrun derive --check` finds a stale committed table."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from runner import tasks
from runner.show.tables import proofs

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "tasks" / "README.md"


def test_the_committed_table_is_the_one_the_manifests_give():
    assert "<!-- derived: memrun derive proofs -->" in PAGE.read_text()
    assert proofs.table(tasks.load_all().values()) in PAGE.read_text(), (
        "tasks/README.md's proofs table is stale: run memrun derive"
    )


def test_one_row_per_proof_with_the_version_tables_own_programs():
    rows = proofs.rows(tasks.load_all().values())
    by_name = {name: r for r in rows for name in r.names}
    assert by_name["node"] is by_name["bun"] is by_name["deno"]  # the same program, one row
    assert by_name["python-trio"].proof.label == "state + rule"
    assert by_name["node"].proof.label == "self-contained"
    legacy = [name for name in by_name if "legacy.cjs" in name]
    assert legacy == ["node with node before 16 (`legacy.cjs`)"]
    assert sum(len(r.names) for r in rows) == len(tasks.load_all()) + len(legacy)


def _derive(root: Path, *args: str) -> subprocess.CompletedProcess:
    """memrun derive in a checkout of one page and one task folder (MEMRUN_TASKS points at it)."""
    env = {"MEMRUN_TASKS": str(root / "tasks"), "PATH": "/usr/bin:/bin"}
    argv = [sys.executable, "-m", "runner", "derive", *args]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)


def test_derive_finds_a_stale_table_and_writes_it_again(tmp_path):
    (tmp_path / "tasks").mkdir()
    shutil.copy(PAGE, tmp_path / "tasks" / "README.md")
    shutil.copytree(ROOT / "tasks" / "go", tmp_path / "tasks" / "go")
    (tmp_path / "derived.toml").write_text('pages = ["tasks/README.md"]\n')
    assert _derive(tmp_path, "--check").returncode == 1  # the page lists 29 variants, here is one
    assert _derive(tmp_path).returncode == 0
    assert _derive(tmp_path, "--check").returncode == 0
    assert "| go | counter + rule |" in (tmp_path / "tasks" / "README.md").read_text()
    manifest = tmp_path / "tasks" / "go" / "task.toml"
    manifest.write_text(manifest.read_text().replace('proof.kind = "counter"', 'proof.kind = "state"'))
    stale = _derive(tmp_path, "--check")
    assert stale.returncode == 1 and "stale" in stale.stderr
