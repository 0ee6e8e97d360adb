"""One run of the connections workload: the server measured as a sleep program is (launcher, run
cgroup, sampling, timeouts), the load client beside it holding N connections, and the run judged
from both (runner.workloads.connections.judge)."""

from __future__ import annotations

from runner.execute import Execution, Launch, Settings
from runner.tasks import Variant
from runner.workload import Workload
from runner.workloads.connections import judge, run


def execute(workload: Workload, variant: Variant, n: int, sleep: float, settings: Settings) -> Execution:
    """A connections server measured as a sleep program is, with memrun's load client beside it:
    the client opens its N connections, holds them for `sleep` after `ready N` and closes them;
    its parameter `buffer` (settings.params, else its default) is each connection's read buffer."""
    buffer = {**workload.parse_parameters({}), **(settings.params or {})}["buffer"]
    plan = run.plan(n, sleep, buffer, settings.spec.memory_cap)
    launch = Launch.of(variant, n, sleep, settings, port=plan.port, buffer=buffer)
    timeout = launch.timeout(run.default_timeout(n, sleep))
    result = launch.run(timeout, nofile=plan.descriptors.server, account_sockets=True, companion=plan.hold)
    client = plan.hold.report()
    held = plan.hold.held_s
    judged = judge.judge(
        result,
        client,
        n,
        sleep,
        per_task=variant.per_task,
        failures=variant.failures,
        port=plan.port,
        held_s=held,
        workload=workload,
        limits=launch.limits(),
    )
    return launch.execution(timeout, result, judged, client=client.to_json() if client else None)
