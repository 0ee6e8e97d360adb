"""The verdict of an http run, and when a phase saturated the server.

A run is a figure when the server served until memrun stopped it after the last phase
(LOAD_DONE), the client opened C connections, the one `GET /memrun-404` answered 404, and every
answer to `GET /` was a 302 to a `/Renard-K.png` (tasks/README.md, "HTTP protocol"). A phase
that saturated the server is a finding of a valid run, not a failure: the run says at which rate.
Which rule decides, first match:

1. the server could not start, or the user interrupted the run;
2. the server ended by itself before the load was over: its failure as for sleep (crash, out of
   memory, a manifest's failure such as "too many open files"), else `server-exited`;
3. the load did not end in time (`timeout`);
4. the client could not start, connect or report (`client-failed`, `connect-failed`);
5. an answer broke the protocol: another status or a wrong Location (`wrong-answer`), a response
   HTTP/1.1 cannot frame (`bad-framing`), or a request the kernel took only in parts
   (`partial-send`): the reason names each that happened, the code the first of them;
6. fewer than C connections were open at a phase's end: the server closed some and refused to
   take them back (`connections-lost`): C shrank, and a shortfall would read as saturation;
7. valid: each rate's latency, or where it saturated, or where the client was too late to tell.

A phase is *client-limited* when the client's own send lag p99 passes CLIENT_LAG of the latency
p99 it measured: the latency is then largely the client's, and is never shown as the server's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runner.judge import verdict
from runner.judge.verdict import Verdict
from runner.limits.host import Limits
from runner.measure.result import RunResult
from runner.tasks.manifest import Failure
from runner.workload import Workload
from runner.workloads.web.client import HttpReport

LOAD_DONE = "the load is over"  # the reason memrun stops a run after its last phase
SHORTFALL = 0.01  # a phase that achieved over 1 % less than its rate saturated the server
CLIENT_BUSY = 0.9  # memrun's client busier than this share of its CPUs: the rate was its limit
CLIENT_LAG = 0.1  # send lag p99 over this share of the latency p99: the phase is client-limited
PROTOCOL = "tasks/README.md, HTTP protocol"


def saturation(phase: dict[str, Any], rate: float, slo_s: float) -> str | None:
    """Why this phase saturated the server (its rate achieved fell over 1 % short, answers to
    its window's requests never came, or its p99 from the scheduled time passed the SLO), or None.
    Where memrun's own client was nearly as busy as its CPUs allow, that is said first: such a
    rate is the client's limit here, not a finding about the server."""
    busy = float(phase.get("client_busy") or 0.0)
    if busy >= CLIENT_BUSY:
        return f"memrun's load client was {busy:.0%} busy: the client's limit, not the server's"
    achieved = float(phase.get("achieved_rate") or 0.0)
    unanswered = int(phase.get("unanswered") or 0)
    p99_us = (phase.get("latency") or {}).get("p99_us") or 0
    why = []
    if achieved < rate * (1 - SHORTFALL):
        why.append(f"achieved {achieved:,.0f}/s")
    if unanswered:
        scheduled = int(phase.get("scheduled") or 0)
        share = f" ({unanswered / scheduled:.0%} of the window's, censored)" if scheduled else ""
        why.append(f"{unanswered:,} request(s) unanswered{share}")
    if p99_us > slo_s * 1e6:
        why.append(f"p99 {p99_us / 1000:,.1f} ms over the {slo_s * 1000:g} ms SLO")
    return ", ".join(why) or None


def client_limited(phase: dict[str, Any]) -> str | None:
    """Why this phase's latency is the client's rather than the server's (its send lag p99 passes
    CLIENT_LAG of its latency p99), or None: also None for a phase of the first client, which did
    not measure its send lag (the analysis marks those)."""
    lag = (phase.get("send_lag") or {}).get("p99_us")
    p99 = (phase.get("latency") or {}).get("p99_us")
    if lag is None or not p99 or lag <= CLIENT_LAG * p99:
        return None
    return f"client-limited: its send lag p99 {_ms(lag)} is over {CLIENT_LAG:.0%} of p99 {_ms(p99)}"


def _ms(us: float | None) -> str:
    return "?" if us is None else f"{us / 1000:.2f} ms" if us < 100_000 else f"{us / 1e6:.2f} s"


def phases_text(phases: Sequence[dict[str, Any]], slo_s: float) -> str:
    """Each phase in a few words: `1,000/s p99 0.21 ms; 10,000/s saturated (achieved 8,120/s)`."""
    out = []
    for ph in phases:
        rate = float(ph.get("rate") or 0)
        why = saturation(ph, rate, slo_s)
        p99 = (ph.get("latency") or {}).get("p99_us")
        text = f"{rate:,.0f}/s " + (f"saturated ({why})" if why else f"p99 {_ms(p99)}")
        if not why and (late := client_limited(ph)):
            text += f" ({late})"
        out.append(text)
    return "; ".join(out)


def connections_lost(phases: Sequence[dict[str, Any]], c: int) -> Verdict | None:
    """The first phase that ended with fewer than C connections open because a reconnect failed,
    as a verdict, or None. A connection the server closed that was still being opened again when
    the phase ended, with no reconnect failed, is churn, not a loss: the JDK's servers close idle
    keep-alive connections by the tens of thousands at C = 10k, and 2 to 5 of them were in their
    connect at the end of a saturated phase, on a server slow to accept (`closed_by_server` counts
    them, and the requests they waited for count in full)."""
    for ph in phases:
        opened = ph.get("open_at_end")
        failures = int(ph.get("reconnect_failures") or 0)
        if opened is None or int(opened) >= c or not failures:
            continue
        error = ph.get("reconnect_error")
        how = f"; {failures:,} reconnect(s) failed" + (f" ({error})" if error else "")
        return Verdict(
            "invalid",
            "connections-lost",
            f"at {float(ph.get('rate') or 0):,.0f}/s only {int(opened):,} of {c:,} connections were open "
            f"at the phase's end{how}: the load ran on fewer connections than asked",
            f"keep every connection open or accept it again ({PROTOCOL})",
        )
    return None


def _client_problem(report: HttpReport | None, c: int) -> Verdict | None:
    if report is None or report.problem:
        why = report.problem if report else "it was never started"
        return Verdict("invalid", "client-failed", f"the load client failed: {why}", "see `memrun doctor`")
    if report.connected_s is None:
        return Verdict(
            "invalid",
            "connect-failed",
            f"the client could not open {c:,} connections",
            f"the server must listen on 127.0.0.1:PORT and keep every connection open ({PROTOCOL})",
        )
    return None


# What broke the protocol, in the order a verdict's code takes them: (code, the summary's count,
# the summary's or a phase's example, what it is called, the remedy).
BROKEN = (
    (
        "wrong-answer",
        "wrong",
        "wrong_example",
        "wrong answer(s)",
        f"`GET /` answers 302 to /Renard-K.png, 1 <= K <= IMAGES; any other path 404 ({PROTOCOL})",
    ),
    (
        "bad-framing",
        "bad_framing",
        "bad_framing_example",
        "answer(s) HTTP/1.1 cannot frame",
        "give every answer a Content-Length (or chunked) and keep the connection open (RFC 9112, 6.3)",
    ),
    (
        "partial-send",
        "partial_sends",
        None,
        "request(s) the kernel took only in parts (the rest sent from there; their answers not counted)",
        "read each request whole as it comes",
    ),
)


def _example(report: HttpReport, key: str | None) -> str:
    """The run's first quoted example of a problem: the summary's, else the first phase's."""
    if key is None:
        return ""
    first = (report.summary or {}).get(key)
    return first or next((p.get(key) for p in report.phases if p.get(key)), "") or ""


def broken(report: HttpReport) -> Verdict | None:
    """The run's answers that were not right answers (runner/workloads/web/client.c: wrong status
    or Location, bad framing, partial sends), named each with the first example, as a verdict; or
    the 404 check that got no answer; or None. Counts are the client's totals over the run."""
    summary = report.summary or {}
    said, code, remedy = [], None, None
    for name, key, example_key, what, fix in BROKEN:
        count = int(summary.get(key) or 0)
        if not count:
            continue
        example = _example(report, example_key)
        said.append(f"{count:,} {what}" + (f", the first: {example}" if example else ""))
        code, remedy = code or name, remedy or fix
    if not said and not summary.get("not_found_checked"):
        said, code, remedy = ["the 404 check got no answer"], BROKEN[0][0], BROKEN[0][4]
    if code is None:
        return None
    return Verdict("invalid", code, "; ".join(said), remedy)


def judge(
    result: RunResult,
    report: HttpReport | None,
    c: int,
    *,
    slo_s: float,
    per_task: dict | None = None,
    failures: Sequence[Failure] = (),
    workload: Workload | None = None,
    limits: Limits | None = None,
) -> Verdict:
    """The run's verdict (see the module docstring for the order of the rules). workload: the one
    the run ran, so that the server's own rules read its limits (the RLIMIT_NOFILE memrun set for
    N connections, not the one a sleep program inherits) and say its words; limits: the ones the
    run had (Launch.limits), None for the ones in force now."""
    served = verdict.classify(result, c, 0.0, per_task, limits, failures, workload)
    if served.code in ("not-started", "interrupted"):
        return served
    stopped = result.stopped_reason
    if stopped is None and not result.timed_out:
        if served.verdict == "failed" and served.code not in ("exit", "timeout"):
            return served
        how = f"killed by {result.signal}" if result.signal else f"exit {result.exit_code}"
        last = next((line for line in reversed(result.stderr_tail) if line.strip()), "")
        return Verdict(
            "failed",
            "server-exited",
            f"the server ended by itself ({how}) before the load was over" + (f": {last}" if last else ""),
            f"serve until killed ({PROTOCOL})",
        )
    if result.timed_out:
        return Verdict("failed", "timeout", f"the load did not end within {result.wall_s:.0f} s", None)
    if problem := _client_problem(report, c):
        if stopped != LOAD_DONE:
            return Verdict("invalid", problem.code, f"stopped: {stopped}: {problem.reason}", problem.remedy)
        return problem
    assert report is not None
    if wrong := broken(report):
        return wrong
    if stopped != LOAD_DONE or not report.phases:
        return Verdict("invalid", "client-failed", f"stopped: {stopped}", None)
    if lost := connections_lost(report.phases, c):
        return lost
    return Verdict(
        "valid",
        "ok",
        f"{c:,} connection{'s' if c != 1 else ''} open in {report.connected_s:.2f} s; "
        + phases_text(report.phases, slo_s),
        None,
    )


CODES = {
    "server-exited": "the server ended by itself before the load was over",
    "client-failed": "memrun's load client could not start, connect or report",
    "connect-failed": "the client could not open C connections",
    "wrong-answer": "an answer broke the HTTP protocol (status or Location)",
    "bad-framing": "an answer HTTP/1.1 cannot frame (its length unknown, a malformed chunk, no status line)",
    "partial-send": "the kernel took a request only in parts (the server did not read it whole)",
    "connections-lost": "fewer than C connections were open at a phase's end, and a reconnect had failed",
}
