"""One run of the sleep workload: the program keeps N tasks asleep, measured and judged as is."""

from __future__ import annotations

from runner.execute import Execution, Settings, command, default_timeout
from runner.judge import verdict
from runner.tasks import Variant
from runner.workload import Workload


def execute(workload: Workload, variant: Variant, n: int, sleep: float, settings: Settings) -> Execution:
    """Run the variant's program with N tasks under a fresh (capped) cgroup and judge the run."""
    argv, env, reasons = command(variant, n, sleep, settings.env_override, settings.futex_hash)
    timeout = settings.timeout if settings.timeout is not None else default_timeout(sleep)
    result = settings.run(argv, env, variant, timeout)
    judged = verdict.classify(
        result, n, sleep, variant.per_task, failures=variant.failures, workload=variant.workload
    )
    return Execution(variant, n, sleep, timeout, argv, env, reasons, settings.memory_cap, result, judged)
