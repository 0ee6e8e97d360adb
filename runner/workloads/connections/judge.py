"""The verdict of a connections run: the server's, as for a sleep program, and the client's account.

A run is a figure only when the server said `ready N` and exited 0 after the close, the client
opened all N connections, and none was closed or reset by the server before memrun closed them:
only then were N connections, each with its task, alive at once. Which rule decides, first match:

1. the server could not start, or the user interrupted the run;
2. memrun stopped the server because the client ended early (it gave up): the client's reason;
3. the server failed by itself (crash, exit non-zero, out of memory, a manifest's failure such
   as "too many open files"): the server's verdict, as for sleep;
4. the client could not start or report, could not open N, or saw connections dropped;
5. the server's verdict otherwise (timeout: no `ready N`; a wrong N).

The hold begins at `ready N`, so spawning can never outlast it: the server is judged with a sleep
at least as long as its spawn time, and a valid run's reason says how long the N were held.
"""

from __future__ import annotations

from collections.abc import Sequence

from runner.judge import verdict
from runner.judge.verdict import Verdict
from runner.limits.host import Limits
from runner.measure.result import RunResult
from runner.tasks.manifest import Failure
from runner.workload import Workload
from runner.workloads.connections.client import ClientReport

# Verdict codes of this workload's own (runner.judge.verdict.CODES has the server's).
CODES = {
    "client-failed": "memrun's load client could not start or report",
    "connect-failed": "the client could not open N connections",
    "dropped": "the server closed or reset connections before memrun closed them",
}
PROTOCOL = "tasks/README.md, Connections protocol"


def _client_problem(client: ClientReport | None, n: int, port: int | None) -> Verdict | None:
    """What the client's report says is wrong with the run, or None."""
    if client is None or client.summary is None or client.error:
        why = client.problem if client else "it was never started"
        return Verdict("invalid", "client-failed", f"the load client failed: {why}", "see `memrun doctor`")
    connected, dropped = client.count("connected"), client.count("dropped")
    if connected < n:
        errors = client.count("connect_errors")
        detail = f"{errors:,} connect error(s)" if errors else "no connect error"
        if not connected and client.count("refused_waits"):
            detail = f"nothing accepted connections on 127.0.0.1:{port}" if port else "nothing listened"
        if client.problem:
            detail += f"; {client.problem}"
        return Verdict(
            "invalid",
            "connect-failed",
            f"the client opened {connected:,} of {n:,} connections ({detail})",
            f"the server must listen on 127.0.0.1:PORT with a large backlog and accept all N ({PROTOCOL})",
        )
    if dropped:
        first = (client.summary or {}).get("first_drop_s")
        when = f", the first {first:.1f} s after the client started" if isinstance(first, int | float) else ""
        return Verdict(
            "invalid",
            "dropped",
            f"the server closed or reset {dropped:,} of {n:,} connections before memrun closed them{when}",
            f"each task must hold its connection until EOF or a reset from the client ({PROTOCOL})",
        )
    return None


def judge(
    result: RunResult,
    client: ClientReport | None,
    n: int,
    hold_s: float,
    *,
    per_task: dict | None = None,
    failures: Sequence[Failure] = (),
    workload: Workload | None = None,
    limits: Limits | None = None,
    port: int | None = None,
    held_s: float | None = None,
) -> Verdict:
    """The run's verdict (see the module docstring for the order of the rules). workload: the one
    the run ran, so that the server's own rules read its limits (the RLIMIT_NOFILE memrun set for
    N connections, not the one a sleep program inherits) and say its words; limits: the ones the
    run had (Launch.limits), None for the ones in force now."""
    sleep = max(hold_s, result.ready_s or 0.0)
    served = verdict.classify(result, n, sleep, per_task, limits, failures, workload)
    if served.code in ("not-started", "interrupted"):
        return served
    problem = _client_problem(client, n, port)
    if result.stopped_reason:
        why = problem.reason if problem else (client.problem if client else None) or "no reason given"
        return Verdict(
            "invalid",
            problem.code if problem else "client-failed",
            f"stopped: {result.stopped_reason}: {why}",
            problem.remedy if problem else None,
        )
    if served.verdict == "failed" and served.code != "timeout":
        return served
    if problem:
        return problem
    if not served.valid:
        return served
    held = f"held {held_s:g} s" if held_s is not None else f"held for the {hold_s:g} s sleep"
    return Verdict(
        "valid",
        "ok",
        f"`ready {n}` after {result.ready_s:.2f} s; {n:,} connection{'s' if n != 1 else ''} {held}, "
        "none dropped, exit 0",
        None,
    )
