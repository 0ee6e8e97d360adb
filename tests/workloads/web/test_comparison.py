"""The comparison's stored windows and the table docs/http.md derives from them: medians and
ranges per variant and setup, the ratio of the medians, a setup one generator alone measured left
out, and a broken line named."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main
from runner.workloads.web.comparison import MEMRUN, Window, append, load, table

VEGETA = "vegeta v12.13.0"
BASE = Window("go", MEMRUN, 100, 60_000, 5.0, 10.0, 0.4, ["User-Agent: x"], 0.0, 0.6, 11.0)


def _windows() -> list[Window]:
    out = []
    for ours, theirs in ((30_000, 29_000), (31_000, 30_000), (20_000, 31_000)):
        out.append(replace(BASE, answers_per_s=ours, server_cpu_ms_per_1k=10.0))
        out.append(
            replace(BASE, generator=VEGETA, answers_per_s=theirs, client_busy=0.8, server_cpu_ms_per_1k=12.0)
        )
    return out


def test_a_row_is_the_medians_their_ranges_and_their_ratio(tmp_path: Path):
    path = tmp_path / "windows.jsonl"
    for w in _windows():
        append(path, w)
    append(path, replace(BASE, variant="node"))  # memrun alone: nothing to compare it with
    assert load(path)[:6] == _windows()
    lines = table(load(path)).splitlines()
    assert len(lines) == 3, "a header, its rule and go's row: node's lone window is left out"
    cells = [c.strip() for c in lines[2].strip("|").split("|")]
    assert cells[0] == "go" and "held to 0.4 core" in cells[1] and "vegeta's header lines" in cells[1]
    assert VEGETA in cells[1] and cells[2] == "3 + 3"
    assert cells[3] == "30,000 (20,000–31,000)" and cells[4] == "30,000 (29,000–31,000)"
    assert cells[5] == "1.000" and cells[6] == "0.60 / 0.80" and cells[7] == "10.0 / 12.0"


def test_the_setups_are_rows_of_their_own_and_the_derive_command_prints_the_table(tmp_path: Path):
    path = tmp_path / "windows.jsonl"
    for w in [*_windows(), *(replace(w, header=None, answers_per_s=w.answers_per_s / 2) for w in _windows())]:
        append(path, w)
    result = CliRunner().invoke(main, ["derive", "independent", str(path)])
    assert result.exit_code == 0, result.output
    rows = result.output.splitlines()[2:]
    assert len(rows) == 2 and "Host alone" in rows[1] and "15,000 (10,000–15,500)" in rows[1]


def test_a_line_that_is_no_window_is_named(tmp_path: Path):
    path = tmp_path / "windows.jsonl"
    append(path, BASE)
    path.write_text(path.read_text() + '{"variant": "go"}\n')
    with pytest.raises(ValueError, match=r"windows\.jsonl:2"):
        load(path)
    result = CliRunner().invoke(main, ["derive", "independent", str(tmp_path / "none.jsonl")])
    assert result.exit_code != 0 and "none.jsonl" in result.output
