"""`memrun inspect` on stored results (the committed reference runs, and crafted ones): the story,
the figures, which runs are chosen, and the end-of-sweep summary. No task program is started."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from runner.cli import main
from runner.measure import Sample
from runner.results import ResultsDir, RunRecord, load_records
from runner.results.timelines import load_timelines
from runner.show.story import choose, sweep_summary
from tests.support.runs import failed, result

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "tests" / "fixtures" / "reference-10"  # the first reference sweep, frozen


def test_rust_threads_at_100k_names_max_map_count_and_writes_png_and_svg(tmp_path):
    out = tmp_path / "figs"
    r = CliRunner().invoke(
        main, ["inspect", str(REFERENCE), "-r", "rust-threads", "--n", "100000", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    first = r.output.split("\n\n")[0]
    assert first.startswith("rust-threads N=100,000: failed (thread-limit), run 4858b5bedc86")
    assert "thread count stopped at 16,369, at vm.max_map_count 65,530 / 4 mappings per thread" in first
    assert "end: killed by SIGABRT" in first and "no `ready` line" in first
    assert "100,000 tasks need ≈ 3.5 GiB in their cgroup" in first
    names = sorted(p.name for p in out.iterdir())
    assert len(names) == 6 and "rust-threads-n100000-4858b5bedc86.svg" in names
    svg = (out / "rust-threads-n100000-4858b5bedc86.svg").read_text()
    assert "vm.max_map_count 65,530 / 4 mappings per thread = 16,382" in svg
    assert "killed by SIGABRT" in svg


def test_java_threads_story_tells_the_turnover(tmp_path):
    r = CliRunner().invoke(main, ["inspect", str(REFERENCE), "--run", "f99e9eda44db", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "thread creation fell from 6,000/s to 750/s past 8,900 threads" in r.output
    assert "100,000 tasks started in 94.4 s (1,100/s on average)" in r.output
    assert "at most 17,978 threads were alive at once" in r.output


def test_unknown_selection_is_one_line_exit_2(tmp_path):
    r = CliRunner().invoke(main, ["inspect", str(REFERENCE), "--run", "nope", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "no run nope in" in r.output


def test_old_five_field_timelines_load_and_new_seven_field_ones_too(tmp_path):
    old = load_timelines(REFERENCE, ["4858b5bedc86"])["4858b5bedc86"]
    assert (old[1].t, old[1].threads, old[1].user_s, old[1].sys_s) == (0.0519, 1659, None, None)
    d = ResultsDir(tmp_path)
    point = Sample(0.05, 1, 2, 1, 3, 0.25, 1.5)
    d.add_run({"run_id": "x", "variant": "v", "n": 1, "verdict": "valid", "peak_rss": 1}, [point.row()])
    assert json.loads((tmp_path / "timelines.jsonl").read_text())["timeline"] == [
        [0.05, 1, 2, 1, 3, 0.25, 1.5]
    ]
    assert load_timelines(tmp_path) == {"x": [point]}


def _record(variant: str, n: int, verdict: str, sweep: str, run_id: str, **kw) -> RunRecord:
    judged = result() if verdict == "valid" else failed(exit_code=1)
    return RunRecord(
        variant=variant,
        n=n,
        verdict=verdict,
        code=kw.pop("code", "exit"),
        sweep_id=sweep,
        run_id=run_id,
        reason=kw.pop("reason", "exit 1"),
        result=judged,
        **kw,
    )


def test_choose_takes_the_latest_sweeps_failures_or_a_cells_valid_runs():
    d = Path("r")
    runs = [
        (d, _record("a", 10, "failed", "20250101T000000-aaaaaa", "old")),
        (d, _record("a", 10, "failed", "20250202T000000-bbbbbb", "new")),
        (d, _record("b", 10, "valid", "20250202T000000-bbbbbb", "ok")),
    ]
    assert [r.run_id for _, r in choose(runs)] == ["new"]
    assert [r.run_id for _, r in choose(runs, ["b"])] == ["ok"]
    assert [r.run_id for _, r in choose(runs, run_id="old")] == ["old"]
    assert choose(runs, n=99) == []


def test_sweep_summary_lists_each_cell_without_a_figure_and_how_to_see_it():
    s = "s1"
    rows = [
        _record(
            "rust-threads",
            100_000,
            "failed",
            s,
            "1",
            code="thread-limit",
            reason="thread limit: vm.max_map_count",
        ),
        _record(
            "rust-threads",
            100_000,
            "failed",
            s,
            "2",
            code="thread-limit",
            reason="thread limit: vm.max_map_count",
        ),
        _record("go", 100_000, "valid", s, "3"),
        _record("elixir", 1_000_000, "invalid", s, "4", superseded=True, reason="spawning took 14 s"),
        _record("elixir", 1_000_000, "valid", s, "5"),
    ]
    lines = sweep_summary(rows, Path("results"))
    assert lines == [
        "1 cell(s) with runs that gave no figure:",
        "  rust-threads N=100,000: 2 of 2 run(s) failed, thread limit: vm.max_map_count",
        "    memrun inspect results -r rust-threads --n 100000",
    ]
    assert sweep_summary(rows[2:], Path("results")) == []


def test_reference_results_still_load_whole():
    assert len(load_records([REFERENCE])) == 123
    assert len(load_timelines(REFERENCE)) == 123


def test_default_inspects_the_latest_sweeps_failures_with_the_cpu_split(tmp_path):
    # a crafted results directory: a thread program whose creation collapsed, CPU in the kernel
    from tests.support.timelines import timeline

    d = ResultsDir(tmp_path / "res")
    d.check_writable()  # makes the directory
    tl = timeline(lambda t: 20 + (3000 * t if t <= 5 else 15_000 + 150 * (t - 5)), 12.0, 0.1, 0.3, 1.7)
    run = failed(
        exit_code=None, signal="SIGKILL", timed_out=True, wall_s=12.0, threads_max=16_000, timeline=tl
    )
    d.add_sweep(
        {"sweep_id": "s1", "event": "start", "cpus": 2, "limits": {"pid_max": 32768, "threads_now": 80}}
    )
    bad = RunRecord(
        variant="java-threads",
        n=1_000_000,
        verdict="failed",
        code="timeout",
        sweep_id="s1",
        run_id="bad",
        sleep_s=60,
        reason="timeout after 12 s",
        result=run,
    )
    good = RunRecord(
        variant="go", n=1, verdict="valid", code="ok", sweep_id="s1", run_id="good", result=result()
    )
    d.add_run(bad, [s.row() for s in tl])
    d.add_run(good, [])
    out = tmp_path / "figs"
    r = CliRunner().invoke(main, ["inspect", str(d.path), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("java-threads N=1,000,000: failed (timeout), run bad")
    assert (
        "thread creation fell from 3,000/s to 150/s past 15k threads; 85 % of CPU in the kernel" in r.output
    )
    assert "end: timeout (killed)" in r.output and "good" not in r.output
    svg = (out / "java-threads-n1000000-bad.svg").read_text()
    assert "system (kernel)" in svg and "creation fell" in svg and "timeout (killed)" in svg


def test_a_run_whose_threads_stopped_ending_is_told_and_drawn_as_a_stall(tmp_path):
    """Python's threads that were all alive, then stopped ending after their sleep (crafted from a
    stored capacity probe): the story keeps the peak, tells the stall with the kernel's share, and
    the figure marks it."""
    from dataclasses import replace

    from tests.support.timelines import _stalling

    d = ResultsDir(tmp_path / "res")
    d.check_writable()
    tl = _stalling(90.0)
    run = replace(
        failed(
            exit_code=None, signal="SIGKILL", timed_out=True, wall_s=90.0, threads_max=20_010, timeline=tl
        ),
        ready_n=20_000,
        ready_s=12.0,
    )
    d.add_sweep({"sweep_id": "s1", "event": "start", "cpus": 2, "limits": {"pid_max": 32768}})
    stuck = RunRecord(
        variant="python-threads",
        n=20_000,
        verdict="failed",
        code="timeout",
        sweep_id="s1",
        run_id="stuck",
        sleep_s=19,
        reason="timeout after 90 s",
        result=run,
    )
    d.add_run(stuck, [s.row() for s in tl])
    out = tmp_path / "figs"
    r = CliRunner().invoke(main, ["inspect", str(d.path), "--run", "stuck", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "20,010 threads alive, the most at any sample" in r.output
    assert "after every sleep was over, 19k threads stayed alive without ending for 57 s" in r.output
    assert "% of CPU in the kernel" in r.output
    assert "threads stopped ending" in (out / "python-threads-n20000-stuck.svg").read_text()


def _valid(wall_s: float, ready_s: float, sleep_s: float, rss_at_ready: int, rss_later: int) -> tuple:
    """A valid run and its timeline: RSS rss_at_ready at `ready`, rss_later a second after."""
    r = result(wall_s=wall_s, ready_s=ready_s, ready_n=1000)
    record = RunRecord("fake", 1000, "valid", code="ok", run_id="r1", sleep_s=sleep_s, result=r)
    timeline = [
        Sample(0.1, rss_at_ready // 2, 1, 1, None),
        Sample(ready_s + 0.01, rss_at_ready, 1, 1, None),
        Sample(ready_s + 1.0, rss_later, 1, 1, None),
        Sample(wall_s, rss_later, 1, 1, None),
    ]
    return record, timeline


def test_the_story_says_what_proves_the_waits_overlapped():
    from runner.show.story import Case, story

    record, timeline = _valid(10.4, 0.5, 10.0, 50_000_000, 50_000_000)
    text = story(Case(Path("."), record, timeline, {}, "its sweep", {}, 2))
    assert "wall 10.4 s < 2 × 10 s sleep: every wait overlapped (timing)" in text
    assert "ratio 1.00, memory held still" in text

    assert "proof" not in text  # a row stored before runs recorded their proof's kind

    late, grown = _valid(25.0, 9.0, 10.0, 20_000_000, 50_000_000)
    text = story(Case(Path("."), late, grown, {}, "its sweep", {}, 2))
    assert "valid on its program's `ready` proof only" in text
    assert "ratio 0.40, memory still grew after `ready`" in text


def test_the_story_says_what_the_programs_ready_proved():
    from runner.show.story import Case, story

    record, timeline = _valid(10.4, 0.5, 10.0, 50_000_000, 50_000_000)
    text = story(Case(Path("."), record.replace(proof="counter"), timeline, {}, "its sweep", {}, 2))
    assert (
        "  proof     counter: proves N waiting only with `ready` before the sleep's end, which it was" in text
    )
    text = story(Case(Path("."), record.replace(proof="self-contained"), timeline, {}, "its sweep", {}, 2))
    assert "  proof     self-contained: no wait could end before `ready`" in text


def test_inspect_overlap_lists_each_valid_run_with_its_proof():
    from runner.show.story import overlap_table

    held, timeline = _valid(10.4, 0.5, 10.0, 50_000_000, 50_000_000)
    grew, grown = _valid(12.0, 0.5, 10.0, 20_000_000, 50_000_000)
    grew = grew.replace(run_id="r2", n=2000)
    lines = overlap_table([held.replace(proof="state"), grew], {"r1": timeline, "r2": grown})
    assert lines[0].split()[:3] == ["variant", "N", "ready"] and "ready proof" in lines[0]
    assert lines[1].endswith("wall < 2×sleep  state           1.00") and lines[2].endswith("0.40 (grew)")
    assert " — " in lines[2]  # stored before runs recorded their proof's kind


def test_a_pinned_http_server_is_told_on_its_own_cpus(tmp_path):
    """An http server runs under taskset on its share of the CPUs: its CPU line names that share,
    not all the machine's CPUs."""
    d = ResultsDir(tmp_path / "res")
    d.check_writable()
    d.add_sweep({"sweep_id": "s1", "event": "start", "cpus": 2, "workload": "http"})
    pinned = RunRecord(
        variant="go", n=100, verdict="valid", code="ok", sweep_id="s1", run_id="h", result=result(),
        workload="http", client={"cpus": {"server": "0", "client": "1"}},
    )  # fmt: skip
    d.add_run(pinned, [])
    r = CliRunner().invoke(main, ["inspect", str(d.path), "-r", "go", "--n", "100", "--workload", "http"])
    assert r.exit_code == 0, r.output
    assert "pinned to CPU 0 of 2" in r.output and "on 2 CPUs" not in r.output, r.output
