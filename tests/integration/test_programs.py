"""Every task program, built and run for real with a 1 s sleep, measured by the real core.

Under CI=true a variant whose toolchain is missing fails here instead of skipping.
"""

from __future__ import annotations

import os
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from runner import tasks
from runner.judge import overlap
from runner.measure import MIB, measure
from tests.support.process import require

pytestmark = pytest.mark.serial  # real runtimes, real limits, real signals: alone on the machine

EXPECTED = {
    # the 2023 article's ten
    "rust-threads",
    "rust-tokio",
    "rust-async-std",
    "go",
    "java-threads",
    "java-virtual",
    "dotnet",
    "node",
    "python",
    "elixir",
    # its successors' and the idioms people argue about
    "rust-futures",
    "rust-smol",
    "c-pthreads",
    "cpp-asio",
    "dotnet-delay",
    "dotnet-threads",
    "elixir-spawn",
    "erlang",
    "kotlin-coroutines",
    "bun",
    "deno",
    "pypy",
    "python-gevent",
    "python-threads",
    "python-uvloop",
    "python-trio",
    "haskell",
    "nim",
    "crystal",
}
VARIANTS = tasks.load_all()
SLEEP = 1.0
RUNS_AT_ONCE = 8  # the short runs below, side by side (the module runs alone): 23 s at 4, 14 s at 8


def test_every_variant_is_defined():
    assert set(VARIANTS) >= EXPECTED


@pytest.fixture(scope="module")
def built():
    """Build each usable folder once; remember why the others cannot run."""
    problems: dict[str, str] = {}
    for tf in tasks.folders(VARIANTS.values()):
        v = tf.variants[0]
        r = tasks.readiness(v)
        if not r.usable:
            for x in tf.variants:
                problems[x.name] = "; ".join(r.problems)
            continue
        try:
            tasks.build(v)
        except tasks.BuildError as e:
            for x in tf.variants:
                problems[x.name] = str(e)
    return problems


def _measure(name: str, n: int):  # type: ignore[no-untyped-def]
    argv, env, _ = tasks.run_command(VARIANTS[name], n, SLEEP)
    return measure(argv, env={**os.environ, **env}, timeout=120, cwd=VARIANTS[name].folder.dir)


@pytest.fixture(scope="module")
def runs(built):
    """Every runnable variant at N = 1 and 1,000, RUNS_AT_ONCE at a time (each is mostly its 1 s
    sleep). What the tests read from these runs no neighbour can move: the exit, `ready N`, what
    else came on stdout, a wall time of at least the sleep, and, for the thread variants, the
    tree's own high-water mark of touched pages at 1,000 threads against 1. The proofs below,
    which read a timeline, run one at a time."""
    cells = [(name, n) for name in sorted(EXPECTED) if name not in built for n in (1, 1000)]
    with ThreadPoolExecutor(RUNS_AT_ONCE) as pool:
        return dict(zip(cells, pool.map(lambda cell: _measure(*cell), cells), strict=True))


def _run(name: str, n: int, built: dict[str, str], runs: dict):
    require(name not in built, f"{name}: {built.get(name)}")
    return runs[(name, n)]


@pytest.mark.parametrize("n", [1, 1000])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_program_runs_n_tasks(name, n, built, runs):
    r = _run(name, n, built, runs)
    assert r.exit_code == 0, (r.outcome(), r.stderr_tail)
    assert r.ready_n == n
    assert r.stdout_other == 0, "the protocol allows nothing on stdout but the readiness line"
    assert r.wall_s >= SLEEP
    assert r.ready_s is not None and r.ready_s < r.wall_s


@pytest.mark.parametrize(
    "name", ["rust-threads", "java-threads", "c-pthreads", "dotnet-threads", "python-threads"]
)
def test_thread_variants_cost_more_at_1000(name, built, runs):
    one, thousand = _run(name, 1, built, runs), _run(name, 1000, built, runs)
    assert thousand.peak_rss > one.peak_rss + 5 * MIB, (one.peak_rss / MIB, thousand.peak_rss / MIB)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_arguments_exit_2(name, built):
    require(name not in built, f"{name}: {built.get(name)}")
    argv, env, _ = tasks.run_command(VARIANTS[name], 1, SLEEP)
    bad = [a if a != "1" else "abc" for a in argv]
    r = measure(bad, env={**os.environ, **env}, timeout=60, cwd=VARIANTS[name].folder.dir)
    assert r.exit_code == 2, (r.outcome(), r.stderr_tail)
    assert r.ready_n is None


# `ready N` must mean every task is in its wait (tasks/README.md, "What `ready N` proves"). Checked
# from outside at N = 2,000 with a 3 s sleep: OS threads by their state at `ready`, every other
# variant by the memory it holds from `ready` until the first wait could end.
# Not shorter: pypy was `ready` at this N only after 1.7 s (2026-11-27, under load), and a
# window of a few tenths of a second after `ready` would see little of what a premature one leaves.
PROOF_N, PROOF_SLEEP = 2000, 3.0
THREAD_VARIANTS = ["c-pthreads", "rust-threads", "java-threads", "dotnet-threads", "python-threads"]
RUNNABLE_AT_MOST = 0.01
# Where a runtime allocates during the hold for a reason of its own, the ratio it reaches, and why.
HOLD_BELOW = {
    # GHC's idle major collection runs 0.3 s after the program goes quiet, copying a heap of a few
    # MB at this N (0.80-0.90 seen; 1.00 with +RTS -I0, and 0.99-1.00 at 10k and 100k)
    "haskell": 0.7,
}


def _thread_states(pid: int) -> dict[str, int]:
    """How many of the process's threads are in each scheduler state (R, S, D...)."""
    counts: dict[str, int] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        counts[state] = counts.get(state, 0) + 1
    return counts


# A counter or a state proves N tasks waiting only with the rule that `ready` came before the sleep
# could end (tasks/README.md): a run whose spawning outlasted it (dotnet-threads at 2,000 took
# longer than 3 s beside the guest group in CI, 2026-11-27) proves nothing, and is tried once more
# with a sleep that covers the spawning, as `--sleep auto` re-runs such a cell.
RETRY_SLEEP = 4 * PROOF_SLEEP


def _outlasted(ready_s: float | None, sleep: float) -> bool:
    return ready_s is not None and ready_s >= sleep


def _threads_at_ready(name: str, sleep: float) -> tuple[str, float, dict[str, int]]:
    """The program's line, the seconds from before its fork to its `ready`, its threads' states
    read just after."""
    argv, env, _ = tasks.run_command(VARIANTS[name], PROOF_N, sleep)
    t0 = time.monotonic()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, env={**os.environ, **env}, cwd=VARIANTS[name].folder.dir
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode().strip()
        ready_s = time.monotonic() - t0
        states = _thread_states(proc.pid)
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        proc.wait()
    return line, ready_s, states


@pytest.mark.parametrize("name", THREAD_VARIANTS)
def test_ready_comes_with_every_thread_asleep(name, built):
    require(name not in built, f"{name}: {built.get(name)}")
    for sleep in (PROOF_SLEEP, RETRY_SLEEP):
        line, ready_s, states = _threads_at_ready(name, sleep)
        if not _outlasted(ready_s, sleep):
            break
    assert not _outlasted(ready_s, sleep), f"`ready` after {ready_s:.1f} s, past a {sleep:g} s sleep: twice"
    assert line == f"ready {PROOF_N}"
    total = sum(states.values())
    assert total >= PROOF_N, states  # the threads exist: a program with fewer proves nothing here
    assert states.get("R", 0) <= RUNNABLE_AT_MOST * total, states


# Quiet: what a runtime does beside its tasks (a JIT's compiler threads, a collector) runs when the
# core lets it, and beside a guest that can be after `ready`, where it counts as memory that
# arrived late. Bun's RSS at `ready` was 0.93 of its hold's in a full run, and 0.998-1.000 in 20
# runs of ~38 MB beside two busy loops (what its 2,000 tasks take of that was not measured).
@pytest.mark.quiet
@pytest.mark.parametrize("name", sorted(EXPECTED - set(THREAD_VARIANTS)))
def test_memory_holds_still_from_ready(name, built):
    require(name not in built, f"{name}: {built.get(name)}")
    for sleep in (PROOF_SLEEP, RETRY_SLEEP):
        argv, env, _ = tasks.run_command(VARIANTS[name], PROOF_N, sleep)
        folder = VARIANTS[name].folder.dir
        r = measure(argv, env={**os.environ, **env}, timeout=120, cwd=folder, interval=0.02)
        assert r.exit_code == 0 and r.ready_n == PROOF_N, (r.outcome(), r.stderr_tail)
        if not _outlasted(r.ready_s, sleep):
            break
    assert not _outlasted(r.ready_s, sleep), f"`ready` after {r.ready_s} s, past a {sleep:g} s sleep: twice"
    ratio = overlap.hold_ratio(r.timeline, r.ready_s, sleep)
    assert ratio is not None, "no sample between `ready` and the sleep's end"
    held = HOLD_BELOW.get(name, overlap.HELD)
    assert ratio >= held, f"RSS at `ready` is {ratio:.2f} of what the tasks reached later"
