"""runner.show.tables.proofs and scripts/proofs_table.py: tasks/README.md's table of `ready` proofs
is made from the manifests, and a stale committed table fails here."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from runner import tasks
from runner.show.tables import proofs

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "tasks" / "README.md"
SCRIPT = ROOT / "scripts" / "proofs_table.py"


def test_the_committed_table_is_the_one_the_manifests_give():
    committed = proofs.committed(PAGE.read_text())
    assert committed == proofs.block(tasks.load_all().values()), (
        "tasks/README.md's proofs table is stale: run .venv/bin/python scripts/proofs_table.py"
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


def _script(tasks_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"MEMRUN_TASKS": str(tasks_dir), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, str(SCRIPT), *args], env=env, capture_output=True, text=True)


def test_the_script_finds_a_stale_table_and_writes_it_again(tmp_path):
    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    shutil.copy(PAGE, tasks_dir / "README.md")
    shutil.copytree(ROOT / "tasks" / "go", tasks_dir / "go")
    assert _script(tasks_dir, "--check").returncode == 1  # the page lists 29 variants, here is one
    assert _script(tasks_dir).returncode == 0
    assert _script(tasks_dir, "--check").returncode == 0
    assert "| go | counter + rule |" in (tasks_dir / "README.md").read_text()
    manifest = tasks_dir / "go" / "task.toml"
    manifest.write_text(manifest.read_text().replace('proof.kind = "counter"', 'proof.kind = "state"'))
    stale = _script(tasks_dir, "--check")
    assert stale.returncode == 1 and "stale" in stale.stderr


def test_a_page_without_its_markers_is_refused():
    try:
        proofs.filled("no table here", [])
    except proofs.StaleError as e:
        assert "found 0" in str(e)
    else:
        raise AssertionError("a page without the markers was filled")
