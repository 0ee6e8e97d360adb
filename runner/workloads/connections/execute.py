"""One run of the connections workload: the server measured as a sleep program is (launcher, run
cgroup, sampling, timeouts), the load client beside it holding N connections, and the run judged
from both (runner.workloads.connections.judge)."""

from __future__ import annotations

import os
from collections.abc import Callable

from runner.execute import Execution, command
from runner.measure import Sample, measure
from runner.tasks import Variant
from runner.workload import Workload
from runner.workloads.connections import DEFAULT_BUFFER, judge, run


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
    buffer: int | None = None,
) -> Execution:
    """A connections server measured as a sleep program is, with memrun's load client beside it:
    the client opens its N connections, holds them for `sleep` after `ready N` and closes them;
    `buffer` is each connection's read buffer."""
    buffer = DEFAULT_BUFFER if buffer is None else buffer
    plan = run.plan(n, sleep, buffer, memory_cap)
    argv, env, reasons = command(variant, n, sleep, env_override, futex_hash, port=plan.port, buffer=buffer)
    timeout = timeout if timeout is not None else run.default_timeout(n, sleep)
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
        nofile=plan.descriptors.server,
        account_sockets=True,
        companion=plan.hold,
    )
    client = plan.hold.report()
    judged = judge.judge(
        result,
        client,
        n,
        sleep,
        per_task=variant.per_task,
        failures=variant.failures,
        port=plan.port,
        held_s=plan.hold.held_s,
    )
    return Execution(
        variant,
        n,
        sleep,
        timeout,
        argv,
        env,
        reasons,
        memory_cap,
        result,
        judged,
        buffer=buffer,
        client=client.to_json() if client else None,
    )
