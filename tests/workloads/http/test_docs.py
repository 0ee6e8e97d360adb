"""docs/http.md's reference table is `memrun report plots/data --workload http`, never a
hand-copied figure: the generated block equals the command's output on the committed data."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from runner.cli import main

ROOT = Path(__file__).resolve().parents[3]
START = "<!-- generated: memrun report plots/data --workload http -->\n"
END = "<!-- end of the generated block -->"


def test_the_reference_block_is_the_report_of_the_committed_data():
    doc = (ROOT / "docs" / "http.md").read_text()
    block = doc[doc.index(START) + len(START) : doc.index(END)].strip()
    result = CliRunner().invoke(main, ["report", str(ROOT / "plots" / "data"), "--workload", "http"])
    assert result.exit_code == 0, result.output
    assert block == result.output.strip(), (
        "docs/http.md is stale: put `memrun report plots/data --workload http` between its markers"
    )
