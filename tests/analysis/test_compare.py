"""`memrun compare BASE OTHER`: ratios, the significance rule, exit status for CI, bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pandas as pd
import pytest

from runner.analysis import compare
from runner.show.tables.compare import render
from tests.support.cli import ROOT, one_line_error, show
from tests.support.crafted import write_results

BASE = {
    ("go", 1): [2.2, 2.2, 2.3],
    ("go", 10_000): [30.1, 30.3, 30.4],
    ("rust-tokio", 10_000): [7.5, 7.5, 7.6],
    ("python", 10_000): [10.0, 12.0, 14.0],
}
# go 10k: +8.9 %, ranges apart -> larger. rust-tokio 10k: -18.7 % -> smaller. python 10k: +8.3 %
# but within the repeats' spread (ranges overlap) -> not significant. go 1: same.
REGRESSED = {
    ("go", 1): [2.2, 2.3, 2.2],
    ("go", 10_000): [33.0, 33.2, 32.9],
    ("rust-tokio", 10_000): [6.1, 6.0, 6.2],
    ("python", 10_000): [11.0, 13.0, 15.0],
}
NEWER_GO = {"go": {"go": "go version go1.27.1 linux/amd64", "build": "go-build"}}


@pytest.fixture
def dirs(tmp_path):
    base = write_results(tmp_path / "base", "vm", BASE)
    other = write_results(tmp_path / "other", "vm", REGRESSED, sweep_id="s2", versions=NEWER_GO)
    return base, other


def _rows(md: str) -> dict[tuple[str, str], list[str]]:
    out = {}
    for line in md.splitlines():
        if line.startswith("| ") and not line.startswith("| variant"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            out[(cells[0], cells[1])] = cells[2:]
    return out


def test_ratios_verdicts_and_versions(dirs):
    result = compare.compare_dirs(*dirs)
    md = render(result, "md")
    rows = _rows(md)
    assert rows[("go", "10k")][:3] == ["30.3 MB (30.1–30.4)", "33.0 MB (32.9–33.2)", "1.09× (+8.9%)"]
    # 3 runs a side: the rank test cannot reach p < 0.002 (its smallest p is 0.1), so the 99 %
    # intervals of the means decide, and they lie apart
    assert rows[("go", "10k")][3:5] == ["n 3+3 · p 0.1 · 99 % intervals apart", "**larger**"]
    assert rows[("go", "10k")][5] == "go 1.26.8 → 1.27.1"  # the version that differs, in the cell's row
    assert (
        rows[("rust-tokio", "10k")][2] == "0.81× (-18.7%)" and rows[("rust-tokio", "10k")][4] == "**smaller**"
    )
    assert rows[("go", "1")][3:5] == ["n 3+3 · p 1 · within 5 %", "not significant"]  # the same three values
    assert "Mann-Whitney U test gives p < 0.002" in md and "more than 512 KiB" in md
    assert "1 larger, 1 smaller, 2 not significant" in md and result.worse


def test_a_difference_within_the_repeats_spread_is_not_significant(dirs):
    rows = {(r.variant, r.n): r for r in compare.compare_dirs(*dirs).rows}
    python = rows[("python", 10_000)]
    assert python.ratio == pytest.approx(13 / 12) and python.ratio - 1 > 0.05  # past the threshold…
    assert python.verdict == "not significant"  # …but [10, 14] and [11, 15] spread too much
    assert python.evidence.why == "99 % intervals overlap"


def test_threshold_decides_when_the_runs_differ(dirs):
    rows = {(r.variant, r.n): r for r in compare.compare_dirs(*dirs, threshold=0.10).rows}
    assert rows[("go", 10_000)].verdict == "not significant"  # +8.9 % < 10 %
    assert rows[("rust-tokio", 10_000)].verdict == "smaller"


def test_csv_and_json(dirs):
    result = compare.compare_dirs(*dirs)
    table = pd.read_csv(io.StringIO(render(result, "csv")))
    go = table[(table.variant == "go") & (table.n == 10_000)].iloc[0]
    assert go.base_median_bytes == 30.3e6 and go.other_median_bytes == 33.0e6 and bool(go.significant)
    assert go.p == pytest.approx(0.1) and go.test == "99 % intervals" and go.floor_bytes == 512 * 1024
    recs = json.loads(render(result, "json"))
    assert {r["verdict"] for r in recs} == {"larger", "smaller", "not significant"}
    assert next(r for r in recs if r["variant"] == "go")["version_changes"] == ["go 1.26.8 → 1.27.1"]
    assert next(r for r in recs if r["variant"] == "python")["base_spread"] == pytest.approx(4 / 12)


# The example pair, one run a side: the old rule (ranges apart, threshold 5 %) called
# each of these significant. rust-tokio and nim move 0.2 MB at N=1 (within the floor); java-virtual
# and kotlin move 15 % and 10 % at 1M, which one run a side cannot test.
ONE_RUN_BASE = {
    ("rust-tokio", 1): [2.8],
    ("nim", 1): [1.8],
    ("java-virtual", 1_000_000): [997.0],
    ("kotlin-coroutines", 1_000_000): [491.0],
    ("go", 10_000): [30.3],
}
ONE_RUN_OTHER = {
    ("rust-tokio", 1): [3.0],
    ("nim", 1): [1.6],
    ("java-virtual", 1_000_000): [1145.0],
    ("kotlin-coroutines", 1_000_000): [541.0],
    ("go", 10_000): [30.5],
}


def test_one_run_a_side_cannot_call_noise_a_change(tmp_path):
    base = write_results(tmp_path / "a", "vm", ONE_RUN_BASE)
    other = write_results(tmp_path / "b", "vm", ONE_RUN_OTHER, sweep_id="s2")
    result = compare.compare_dirs(base, other)
    verdicts = {(r.variant, r.n): r.verdict for r in result.rows}
    assert verdicts == {
        ("go", 10_000): "not significant",
        ("java-virtual", 1_000_000): "too few runs",
        ("kotlin-coroutines", 1_000_000): "too few runs",
        ("nim", 1): "not significant",
        ("rust-tokio", 1): "not significant",
    }
    assert not result.worse and result.undecided and not result.failed() and result.failed(strict=True)
    why = {(r.variant, r.n): r.evidence.why for r in result.rows}
    assert why[("java-virtual", 1_000_000)] == "1 run a side cannot show a 5 % change; --repeat 7 would"
    assert why[("rust-tokio", 1)] == "195 KiB is within the 512 KiB floor"
    p = show("compare", str(base), str(other), tmp_path=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "2 too few runs, 3 not significant" in p.stdout
    strict = show("compare", str(base), str(other), "--strict", tmp_path=tmp_path)
    assert strict.returncode == 1


def test_the_floor_keeps_a_small_wobble_from_counting_even_when_runs_differ(tmp_path):
    small = {("rust-tokio", 1): [2.80, 2.81, 2.80, 2.82, 2.81, 2.80, 2.81]}
    moved = {("rust-tokio", 1): [3.00, 3.01, 3.02, 3.00, 3.01, 3.00, 3.02]}
    base = write_results(tmp_path / "a", "vm", small)
    other = write_results(tmp_path / "b", "vm", moved, sweep_id="s2")
    (row,) = compare.compare_dirs(base, other).rows
    assert row.evidence.test == "rank test" and row.evidence.p < 0.002  # the runs do differ…
    assert row.verdict == "not significant"  # …by 0.2 MB (+7 %), within the floor
    assert show("compare", str(base), str(other), tmp_path=tmp_path).returncode == 0
    no_floor = show("compare", str(base), str(other), "--floor", "0", tmp_path=tmp_path)
    assert no_floor.returncode == 1 and "n 7+7 · p 0.00058 < 0.002 | **larger**" in no_floor.stdout


def test_seven_runs_a_side_use_the_rank_test(tmp_path):
    base = write_results(tmp_path / "a", "vm", {("go", 100_000): [275, 276, 277, 273, 272, 278, 271]})
    interleaved = {("go", 100_000): [300, 270, 301, 302, 303, 304, 305]}
    other = write_results(tmp_path / "b", "vm", interleaved, sweep_id="s2")
    (row,) = compare.compare_dirs(base, other).rows
    # one OTHER run lies below every BASE run: U = 42 of 49; 45 of the C(14, 7) = 3432 orderings
    # have U <= 7, so p = 2 x 45 / 3432 = 0.026, not below 0.002
    assert row.evidence.test == "rank test" and row.evidence.p == pytest.approx(90 / 3432)
    assert row.ratio > 1.05 and row.verdict == "not significant"


THP_ALWAYS = {"cpu_model": "EPYC", "cpus": 2, "kernel": "6.1.0", "thp": "always", "page_size": 4096}


def test_machine_differences_are_named_with_a_warning_where_they_move_memory(tmp_path):
    base = write_results(tmp_path / "a", "vm", {("go", 1): [2.2, 2.2]}, fingerprint=THP_ALWAYS)
    other_print = {**THP_ALWAYS, "thp": "never", "cpu_model": "Xeon", "ksm": "off"}
    other = write_results(
        tmp_path / "b", "vm", {("go", 1): [2.2, 2.2]}, sweep_id="s2", fingerprint=other_print
    )
    md = render(compare.compare_dirs(base, other))
    assert "Machines differ:\n- CPU model: EPYC → Xeon\n- ⚠ transparent huge pages: always → never" in md
    assert "(can move memory: huge pages round anonymous memory up to 2 MiB at a time)" in md
    assert "- not recorded on one side: KSM" in md
    same = write_results(tmp_path / "c", "vm", {("go", 1): [2.2, 2.2]}, sweep_id="s3", fingerprint=THP_ALWAYS)
    assert "Machines: no difference in the recorded fingerprint." in render(compare.compare_dirs(base, same))


def test_a_side_whose_sweeps_ran_on_differing_machines_is_refused(tmp_path):
    base = write_results(tmp_path / "a", "vm", {("go", 1): [2.2]}, fingerprint=THP_ALWAYS)
    write_results(base, "vm", {("go", 1): [2.4]}, sweep_id="x", fingerprint={**THP_ALWAYS, "thp": "never"})
    other = write_results(tmp_path / "b", "vm", {("go", 1): [2.2]}, sweep_id="s2")
    one_line_error(
        show("compare", str(base), str(other), tmp_path=tmp_path),
        "holds runs of 2 labels (vm [transparent huge pages always], vm [transparent huge pages never])",
    )


def test_settings_given_to_a_sweep_are_named_per_cell(tmp_path):
    base = write_results(tmp_path / "a", "vm", {("go", 100_000): [276.0, 276.5, 277.0]})
    other = write_results(
        tmp_path / "b", "gogc", {("go", 100_000): [250.0, 250.4, 251.0]}, sweep_id="s2", env={"GOGC": "50"}
    )
    (row,) = compare.compare_dirs(base, other).rows
    assert row.changes == ["GOGC unset → 50"] and row.verdict == "smaller"


def test_variants_whose_manifest_says_they_spread_get_their_spread_reported(tmp_path):
    info = {"java-virtual": {"family": "JVM", "idiom": "virtual threads", "spread": "heap steps"}}
    cells = {("java-virtual", 10_000): [80.0, 95.0, 88.0], ("go", 10_000): [30.0, 30.2, 30.1]}
    base = write_results(tmp_path / "a", "vm", cells, variant_info=info)
    other = write_results(
        tmp_path / "b", "vm", {("java-virtual", 10_000): [90.0], ("go", 10_000): [30.1]}, sweep_id="s2"
    )
    md = render(compare.compare_dirs(base, other))
    assert (
        "- java-virtual spreads run to run (heap steps). (max − min) / median: "
        "10k: BASE 17 % over 3 runs, OTHER 1 run: unknown." in md
    )
    assert "- go spreads" not in md


@pytest.mark.parametrize(("text", "value"), [("5%", 0.05), ("5", 0.05), ("0.5 %", 0.005), ("0", 0.0)])
def test_threshold_parsing(text, value):
    assert compare.parse_threshold(text) == pytest.approx(value)


def test_cli_exits_1_on_a_regression_past_the_threshold(dirs, tmp_path):
    p = show("compare", *map(str, dirs), tmp_path=tmp_path)
    assert p.returncode == 1, p.stderr
    assert (
        "| go | 10k | 30.3 MB (30.1–30.4) | 33.0 MB (32.9–33.2) | 1.09× (+8.9%) "
        "| n 3+3 · p 0.1 · 99 % intervals apart | **larger** |"
    ) in p.stdout


def test_cli_exits_0_when_nothing_is_worse(dirs, tmp_path):
    p = show("compare", *map(str, dirs), "--threshold", "10%", tmp_path=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (
        "0.81× (-18.7%) | n 3+3 · p 0.1 · 99 % intervals apart | **smaller**" in p.stdout
    )  # better: no failure
    swapped = show("compare", str(dirs[1]), str(dirs[0]), "--threshold", "10%", tmp_path=tmp_path)
    assert (
        swapped.returncode == 1
        and "1.23× (+23.0%) | n 3+3 · p 0.1 · 99 % intervals apart | **larger**" in swapped.stdout
    )


def test_a_cell_that_lost_its_figure_is_worse(tmp_path):
    base = write_results(tmp_path / "a", "vm", {("go", 1): [2.0], ("go", 10): [3.0]})
    other = write_results(tmp_path / "b", "vm", {("go", 1): [2.0], ("go", 10): [None]})
    result = compare.compare_dirs(base, other)
    assert [r.verdict for r in result.rows] == ["not significant", "no figure in OTHER"] and result.worse
    assert "*failed: thread limit: kernel.pid_max*" in render(result)
    assert not compare.compare_dirs(other, base).worse  # gaining a figure is not a regression


def test_two_machines_compare_and_only_common_cells_count(tmp_path):
    base = write_results(tmp_path / "laptop", "laptop", {("go", 1): [2.0], ("go", 10): [3.0]})
    other = write_results(tmp_path / "vm", "vm", {("go", 1): [2.0], ("node", 1): [40.0]})
    result = compare.compare_dirs(base, other)
    assert [(r.variant, r.n) for r in result.rows] == [("go", 1)]
    md = render(result)
    assert "label laptop" in md and "label vm" in md and "Only in BASE: go 10. Only in OTHER: node 1." in md


@pytest.mark.parametrize("case", ["same", "same-via-file", "no-overlap", "metric", "threshold", "mixed"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, case):
    base = write_results(tmp_path / "a", "vm", {("go", 1): [2.0]})
    other = write_results(tmp_path / "b", "vm", {("node", 1): [40.0]})
    if case == "mixed":  # a second machine's sweep in BASE: its median would pool two machines
        write_results(base, "laptop", {("go", 1): [2.1]}, sweep_id="x")
    args, words = {
        "same": ([base, base], "same directory"),
        "same-via-file": ([base, base / "runs.jsonl"], "same directory"),
        "no-overlap": ([base, other], "no (variant, N) in common"),
        "metric": ([base, other, "--metric", "vsz"], "--metric"),
        "threshold": ([base, other, "--threshold", "lots"], "--threshold"),
        "mixed": ([base, other], "holds runs of 2 labels (vm, laptop)"),
    }[case]
    one_line_error(show("compare", *map(str, args), tmp_path=tmp_path), words)


@pytest.mark.parametrize("args", [["compare", "--help"], ["report", "--help"], ["sweep", "--help"]])
def test_help_of_the_new_options_imports_no_pandas_or_matplotlib(args):
    code = (
        "import sys\nfrom runner.cli import main\n"
        f"try:\n    main({args!r}, standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.stdout.strip().splitlines()[-1] == "[]", p.stdout + p.stderr


def test_one_label_of_a_directory_of_several_is_chosen_with_dir_colon_label(tmp_path):
    both = write_results(tmp_path / "a", "vm", {("go", 1): [2.0], ("go", 10_000): [30.0]})
    write_results(both, "laptop", {("go", 1): [2.1], ("go", 10_000): [33.0]}, sweep_id="x")
    result = compare.compare_dirs(f"{both}:vm", f"{both}:laptop")  # one directory, two labels
    ratios = {r.n: r.ratio for r in result.rows}
    assert ratios[10_000] == pytest.approx(1.1) and ratios[1] == pytest.approx(1.05)
    refused = show("compare", f"{both}:desktop", f"{both}:vm", tmp_path=tmp_path)
    one_line_error(refused, "holds no runs labelled 'desktop'; its labels: vm, laptop")
    whole = show("compare", str(both), f"{both}:vm", tmp_path=tmp_path)
    one_line_error(whole, "holds runs of 2 labels (vm, laptop)", f"choose one as BASE with {both}:LABEL")


def test_capacity_probes_are_no_label_of_a_comparison(tmp_path):
    base = write_results(tmp_path / "a", "vm", {("go", 1): [2.0]})
    other = write_results(tmp_path / "b", "vm", {("go", 1): [2.0]})
    rows = [json.loads(line) for line in (base / "runs.jsonl").read_text().splitlines()]
    probe = {**rows[0], "kind": "capacity-probe", "label": "other machine", "run_id": "p1"}
    with (base / "runs.jsonl").open("a") as f:
        f.write(json.dumps(probe) + "\n")
    assert [r.variant for r in compare.compare_dirs(base, other).rows] == ["go"]


def test_spawn_times_compare_in_seconds_with_no_floor(tmp_path):
    cells = {("go", 100_000): [270.0, 271.0, 270.5], ("python", 1_000_000): [1380.0, 1382.0, 1381.0]}
    was = {("go", 100_000): [0.22, 0.23, 0.22], ("python", 1_000_000): [12.5, 12.6, 12.4]}
    now = {("go", 100_000): [0.22, 0.22, 0.23], ("python", 1_000_000): [14.9, 15.1, 15.0]}
    base = write_results(tmp_path / "base", "vm", cells, ready=was)
    other = write_results(tmp_path / "other", "vm", cells, sweep_id="s2", ready=now)
    args = ("compare", str(base), str(other), "--metric", "ready_s")
    p = show(*args, "--threshold", "10%")
    assert p.returncode == 1, p.stdout + p.stderr  # python spawned 20 % slower: larger
    assert p.stdout.startswith("Spawn time, seconds: median over valid repeats")
    go = next(x for x in p.stdout.splitlines() if x.startswith("| go | 100k |"))
    py = next(x for x in p.stdout.splitlines() if x.startswith("| python | 1M |"))
    assert "| 0.22 s (0.22–0.23) | 0.22 s (0.22–0.23) |" in go and "not significant" in go
    assert "| 12.50 s (12.40–12.60) | 15.00 s (14.90–15.10) | 1.20× (+20.0%) |" in py and "**larger**" in py
    rows = json.loads(show(*args, "--format", "json").stdout)
    assert rows[0]["base_median_s"] == 0.22 and rows[0]["floor_s"] == 0.0
    assert one_line_error(show(*args, "--floor", "1KiB"), "--floor")


def test_the_rule_is_read_from_the_options_as_typed():
    memory = compare.rule_of("peak_rss", "10%", None)
    assert (memory.threshold, memory.floor, memory.seconds) == (0.1, 512 * 1024, False)
    seconds = compare.rule_of("ready_s", "5", None)
    assert (seconds.threshold, seconds.floor, seconds.seconds) == (0.05, 0.0, True)
    assert compare.rule_of("peak_rss", "5%", "0").floor == 0.0
    with pytest.raises(ValueError, match="--floor"):
        compare.rule_of("ready_s", "5%", "1KiB")
