"""One run of the sleep workload: the program keeps N tasks asleep, measured and judged as is."""

from __future__ import annotations

from runner.execute import Execution, Launch, Settings, default_timeout
from runner.judge import verdict
from runner.tasks import Variant
from runner.workload import Workload


def execute(workload: Workload, variant: Variant, n: int, sleep: float, settings: Settings) -> Execution:
    """Run the variant's program with N tasks under a fresh (capped) cgroup and judge the run."""
    launch = Launch.of(variant, n, sleep, settings)
    timeout = launch.timeout(default_timeout(sleep))
    result = launch.run(timeout)
    judged = verdict.classify(result, n, sleep, variant.per_task, launch.limits(), variant.failures, workload)
    return launch.execution(timeout, result, judged)
