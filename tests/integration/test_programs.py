"""Every task program, built and run for real with a 1 s sleep, measured by the real core.

Under CI=true a variant whose toolchain is missing fails here instead of skipping.
"""

from __future__ import annotations

import os

import pytest

from runner import tasks
from runner.measure import MIB, measure
from tests.conftest import require

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


@pytest.fixture(scope="module")
def runs(built):
    return {}


def _run(name: str, n: int, built: dict[str, str], runs: dict):
    require(name not in built, f"{name}: {built.get(name)}")
    if (name, n) not in runs:
        argv, env, _ = tasks.run_command(VARIANTS[name], n, SLEEP)
        runs[(name, n)] = measure(argv, env={**os.environ, **env}, timeout=120, cwd=VARIANTS[name].folder.dir)
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
