"""The rules that decide whether a run may start beside others, on a fake clock (no process)."""

from __future__ import annotations

from runner.scheduling import warm
from runner.scheduling.admit import ENDING, HOLDING, SPAWNING, Flight, Plan, choose, spawn_bound, start_bound
from runner.units import GIB, MIB

FREE = 16 * GIB


def plan(name: str, spawn: float = 0.5, sleep: float = 10.0, peak: int = 100 * MIB, **more) -> Plan:  # type: ignore[no-untyped-def]
    return Plan(name, name, 1000, spawn, peak, 0.5, sleep, **more)


def holding(p: Plan, t_fork: float = 0.0, usage: int | None = None) -> Flight:
    return Flight(p, HOLDING, t_fork, t_fork + p.sleep, p.peak if usage is None else usage)


def test_with_nothing_in_flight_the_first_in_order_starts_whatever_it_needs():
    big = plan("big", spawn=500.0, peak=100 * GIB, alone="it meets kernel.pid_max here")
    chosen, why = choose([big, plan("b")], 0.0, [], 4, FREE)
    assert chosen is big and why == {"b": "big N=1,000 is spawning"}


def test_jobs_1_never_starts_a_run_beside_another():
    a = holding(plan("a"))
    chosen, why = choose([plan("b")], 1.0, [a], 1, FREE)
    assert chosen is None and why["b"] == "1 run(s) in flight (--jobs 1)"


def test_a_run_starts_only_while_every_run_in_flight_holds():
    a, b = plan("a"), plan("b")
    for phase, word in ((SPAWNING, "spawning"), (ENDING, "ending")):
        flight = Flight(a, phase, 0.0, 10.0, 0)
        chosen, why = choose([b], 1.0, [flight], 4, FREE)
        assert chosen is None and why["b"] == f"a N=1,000 is {word}"
    chosen, _ = choose([b], 1.0, [holding(a)], 4, FREE)
    assert chosen is b


def test_a_spawn_must_end_before_the_earliest_wake_with_its_margin():
    a = holding(plan("a"), t_fork=0.0)  # wakes at 10 s
    b = plan("b", spawn=2.0, warm=32 * MIB)  # spawn_bound 4 s; too little to touch first
    assert spawn_bound(2.0) == 4.0 == start_bound(b)
    chosen, _ = choose([b], 5.9, [a], 4, FREE)
    assert chosen is b
    chosen, why = choose([b], 6.0, [a], 4, FREE)
    assert chosen is None and why["b"].startswith(
        "spawn: ≈ 4.0 s would not end before a N=1,000 wakes in 4.0 s"
    )


def test_the_touch_of_a_large_spawns_memory_counts_before_its_spawn():
    """runner.scheduling.warm: the predicted peak is touched before the fork, at the worst rate
    measured on memory a VM's host had taken back; the wake must come after both."""
    a = holding(plan("a"), t_fork=0.0)  # wakes at 10 s
    b = plan("b", spawn=2.0, peak=2 * GIB, warm=2 * GIB)
    assert start_bound(b) == 4.0 + 2 * warm.WARM_S_PER_GIB == 7.0
    assert choose([b], 2.9, [a], 4, FREE)[0] is b
    chosen, why = choose([b], 3.1, [a], 4, FREE)
    assert chosen is None and why["b"].startswith("spawn: ≈ 7.0 s would not end before a N=1,000 wakes")


def test_a_predicted_peak_past_the_free_memory_waits_for_the_machine_to_itself():
    # at its peak: may grow by its margin, 3 GiB
    a = holding(plan("a", peak=6 * GIB), usage=6 * GIB)
    fits, too_big = plan("fits", peak=5 * GIB), plan("big", peak=7 * GIB)
    free = 12 * GIB  # what MemAvailable says less the reserve, a's 6 GiB already out of it
    chosen, _ = choose([fits], 1.0, [a], 4, free)  # 7.5 + 3 GiB (and the slack) fit in 12
    assert chosen is fits
    chosen, why = choose([too_big], 1.0, [a], 4, free)  # 10.5 + 3 GiB do not
    assert chosen is None and why["big"] == "memory: ≈ 13.6 GiB needed, 12.0 GiB free"
    # alone it starts: a run's own cap, not the scheduler, keeps one run within the machine
    chosen, _ = choose([too_big], 20.0, [], 4, free)
    assert chosen is too_big


def test_what_a_run_in_flight_may_still_grow_counts_against_the_newcomer():
    growing = Flight(plan("a", peak=8 * GIB), HOLDING, 0.0, 10.0, usage=1 * GIB)
    chosen, why = choose([plan("b", peak=1 * GIB)], 1.0, [growing], 4, 12 * GIB)
    assert chosen is None and why["b"].startswith("memory:")


def test_a_run_that_must_run_alone_never_shares():
    alone = plan("alone", alone="it meets kernel.pid_max here")
    chosen, why = choose([alone], 1.0, [holding(plan("a"))], 4, FREE)
    assert chosen is None and why["alone"] == "runs alone: it meets kernel.pid_max here"
    flight = holding(alone)
    chosen, why = choose([plan("b")], 1.0, [flight], 4, FREE)
    assert chosen is None and why["b"] == "alone N=1,000 runs alone"


def test_a_later_run_passes_a_waiting_first_one_only_if_it_ends_before_the_runs_in_flight():
    a = holding(plan("a", sleep=60.0))  # wakes at 60 s, over by about 62 s
    head = plan("head", spawn=50.0)  # cannot start before a wakes
    short = plan("short", spawn=0.2, sleep=10.0)
    long = plan("long", spawn=0.2, sleep=60.0)
    chosen, why = choose([head, long, short], 1.0, [a], 4, FREE)
    assert chosen is short
    assert why["head"].startswith("spawn:") and why["long"] == "order: would hold back head N=1,000"


def test_a_row_that_runs_nothing_takes_its_turn_only_with_jobs_1():
    note = plan("note", instant=True)
    a = holding(plan("a"))
    assert choose([note], 1.0, [a], 4, FREE)[0] is note
    assert choose([note], 1.0, [a], 1, FREE)[0] is None


def test_a_run_spawns_only_beside_holds_measured_idle():
    """A hold is idle when measured so, not assumed: its CPU unknown, or the holds' CPU together at
    HOLD_CPU_LIMIT or more (a million BEAM processes asleep take 0.23 of a core), keeps a spawn out."""
    from runner.scheduling.admit import HOLD_CPU_LIMIT

    a, b, c = plan("a"), plan("b"), plan("c")
    unknown = Flight(a, HOLDING, 0.0, 10.0, 0, cpu=None)
    chosen, why = choose([c], 1.0, [unknown], 4, FREE)
    assert chosen is None and why["c"] == "measuring a N=1,000's hold"
    half = HOLD_CPU_LIMIT / 2
    beam = [Flight(a, HOLDING, 0.0, 10.0, 0, cpu=half), Flight(b, HOLDING, 0.0, 10.0, 0, cpu=half)]
    chosen, why = choose([c], 1.0, beam, 4, FREE)
    assert chosen is None and why["c"].startswith(f"busy holds: {2 * half:.2f} of a core")
    beam[1].cpu = 0.01
    chosen, _ = choose([c], 1.0, beam, 4, FREE)
    assert chosen is c
