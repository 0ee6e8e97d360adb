"""When a phase saturated the server, and how phases read in a verdict."""

from __future__ import annotations

from runner.workloads.web.judge import phases_text, saturation


def _phase(rate: float, achieved: float, p99_us: int, unanswered: int = 0) -> dict:
    return {"rate": rate, "achieved_rate": achieved, "unanswered": unanswered, "latency": {"p99_us": p99_us}}


def test_a_phase_within_one_percent_and_under_the_slo_is_not_saturated():
    assert saturation(_phase(1000, 990.5, 2_000), 1000, 0.1) is None


def test_each_reason_to_call_a_phase_saturated():
    assert saturation(_phase(1000, 989, 2_000), 1000, 0.1) == "achieved 989/s"
    assert saturation(_phase(1000, 1000, 2_000, unanswered=3), 1000, 0.1) == "3 request(s) unanswered"
    assert saturation(_phase(1000, 1000, 150_000), 1000, 0.1) == "p99 150.0 ms over the 100 ms SLO"


def test_phases_read_in_rising_order_with_what_saturated():
    text = phases_text([_phase(1000, 1000, 1_500), _phase(10_000, 6_000, 900_000)], 0.1)
    assert text.startswith("1,000/s p99 1.50 ms; 10,000/s saturated (achieved 6,000/s, p99 900.0 ms")


def test_a_client_bound_phase_says_so_first():
    phase = {**_phase(50_000, 40_000, 2_000), "client_busy": 0.97}
    assert saturation(phase, 50_000, 0.1).startswith("memrun's load client was 97% busy")


def test_connections_are_lost_only_where_a_reconnect_failed():
    """Fewer than C open at a phase's end makes a run invalid only where a reconnect failed (C
    shrank); a few the server closed and the client was still opening again as the phase ended
    (the JDK's servers at C = 10k, saturated: 9,998 of 10,000, none failed) are churn."""
    from runner.workloads.web.judge import connections_lost

    churn = {"rate": 10_000, "open_at_end": 9_998, "reconnect_failures": 0, "closed_by_server": 248_336}
    assert connections_lost([churn], 10_000) is None
    lost = {**churn, "reconnect_failures": 3, "reconnect_error": "Connection refused"}
    v = connections_lost([churn, lost], 10_000)
    assert v is not None and v.code == "connections-lost"
    assert "9,998 of 10,000" in v.reason and "3 reconnect(s) failed (Connection refused)" in v.reason
    assert connections_lost([{**lost, "open_at_end": 10_000}], 10_000) is None  # retried, all open again


def test_what_broke_the_protocol_is_named_each_with_its_first_example():
    """Wrong answers, bad framing and partial sends each make a run invalid: the code is the first
    of them, the reason names every one that happened (the run's totals), with its first example
    (the summary's, else a phase's)."""
    from runner.workloads.web.client import HttpReport
    from runner.workloads.web.judge import broken

    def report(phases=(), **summary) -> HttpReport:
        return HttpReport(
            exit_code=0,
            signal=None,
            error=None,
            summary={"not_found_checked": 1, **summary},
            phases=list(phases),
        )

    assert broken(report(wrong=0, bad_framing=0, partial_sends=0)) is None
    assert broken(report()) is None, "a record from before these counters"
    v = broken(report(wrong=2, wrong_example="GET / did not answer 302: HTTP/1.1 200 OK"))
    assert v is not None and (v.verdict, v.code) == ("invalid", "wrong-answer")
    assert v.reason == "2 wrong answer(s), the first: GET / did not answer 302: HTTP/1.1 200 OK"
    phase = {"bad_framing_example": "a malformed chunk size: zz"}
    v = broken(report([phase], bad_framing=1, partial_sends=3))
    assert v is not None and v.code == "bad-framing"
    assert v.reason.startswith(
        "1 answer(s) HTTP/1.1 cannot frame, the first: a malformed chunk size: zz; 3 request(s)"
    )
    v = broken(report(partial_sends=1))
    assert v is not None and v.code == "partial-send" and "only in parts" in v.reason
    v = broken(report(not_found_checked=0))
    assert v is not None and (v.code, v.reason) == ("wrong-answer", "the 404 check got no answer")
