"""Every variant whose manifest has the connections workload, built and run for real at a small N
through memrun's load client: a valid run (`ready N`, all N open, none dropped, exit 0).

Parametrized over the manifests, so a runtime that gains [variant.workloads.connections] is
tested here without a line of this file changing. Under CI=true a missing toolchain fails.
"""

from __future__ import annotations

import pytest

from runner import lock, tasks
from runner.execute import Settings, execute
from runner.measure import RunSpec
from runner.workload import get as get_workload
from tests.support.connections import machine  # noqa: F401  (fixture)
from tests.support.process import require

pytestmark = pytest.mark.serial  # real runtimes, real limits, real signals: alone on the machine

VARIANTS = {name: v for name, v in tasks.load_all().items() if "connections" in v.has}
N = 50
HOLD = 1.0


@pytest.fixture(scope="module")
def built() -> dict[str, str]:
    """Build each usable folder once (holding the machine: builds disturb a measurement beside
    them); remember why the others cannot run."""
    with lock.measuring(log=lambda line: None, wait=True):
        return _build()


def _build() -> dict[str, str]:
    problems: dict[str, str] = {}
    for tf in tasks.folders(VARIANTS.values()):
        mine = [v for v in tf.variants if v.name in VARIANTS]
        for v in mine:  # a folder's variants may need different tools (node, bun, deno)
            if not (ready := tasks.readiness(v)).usable:
                problems[v.name] = "; ".join(ready.problems)
        usable = [v for v in mine if v.name not in problems]
        if not usable:
            continue
        try:
            tasks.build(usable[0])
        except tasks.BuildError as e:
            problems.update({v.name: str(e) for v in usable})
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_server_holds_n_connections(name, built, machine):  # noqa: F811
    require(name not in built, f"{name}: {built.get(name)}")
    ex = execute(VARIANTS[name].under(get_workload("connections")), N, HOLD, Settings(RunSpec(timeout=120)))
    summary = (ex.client or {}).get("summary") or {}
    assert ex.judged.valid, (ex.judged, ex.result.stderr_tail[-5:], summary)
    assert summary["connected"] == N and summary["dropped"] == 0
    assert ex.result.stdout_other == 0, "the protocol allows nothing on stdout but the readiness line"
    assert ex.result.peak_rss > 0 and ex.result.ready_n == N
