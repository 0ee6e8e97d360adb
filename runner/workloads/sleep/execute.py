"""One run of the sleep workload: the program keeps N tasks asleep, measured and judged as is."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from runner.execute import Execution, command, default_timeout
from runner.judge import verdict
from runner.measure import Sample, measure
from runner.tasks import Variant
from runner.workload import Workload


def execute(
    workload: Workload,
    variant: Variant,
    n: int,
    sleep: float,
    *,
    timeout: float | None = None,
    ready_by: float | None = None,
    memory_cap: int | None = None,
    futex_hash: int | None = None,
    interval: float = 0.05,
    on_sample: Callable[[Sample], None] | None = None,
    timeout_grace: float = 0.0,
    env_override: dict[str, str] | None = None,
    **_: Any,
) -> Execution:
    """Run the variant's program with N tasks under a fresh (capped) cgroup and judge the run."""
    argv, env, reasons = command(variant, n, sleep, env_override, futex_hash)
    timeout = timeout if timeout is not None else default_timeout(sleep)
    result = measure(
        argv,
        timeout=timeout,
        ready_by=ready_by,
        interval=interval,
        env={**os.environ, **env},
        cwd=variant.folder.dir,
        memory_cap=memory_cap,
        on_sample=on_sample,
        timeout_grace=timeout_grace,
    )
    judged = verdict.classify(
        result, n, sleep, variant.per_task, failures=variant.failures, workload=variant.workload
    )
    return Execution(variant, n, sleep, timeout, argv, env, reasons, memory_cap, result, judged)
