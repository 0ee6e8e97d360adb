"""Synthetic timelines of thread creation (a plateau, a collapse, a stall after the sleep), for the
tests of what the diagnosis and the verdicts read from a run's timeline."""

from __future__ import annotations

from runner.measure import Sample


def timeline(
    threads_at, until: float, step: float = 0.05, user_per_s: float = 0.0, sys_per_s: float = 0.0
) -> list[Sample]:
    """Samples every `step` s of a program whose thread count at t is threads_at(t); CPU time
    grows at the given rates (CPUs busy in user code and in the kernel)."""
    out = [Sample(0.0, 0, 0, 0, 0)]  # before exec: nothing in the cgroup yet
    t = step
    while t <= until + 1e-9:
        n = int(threads_at(t))
        out.append(
            Sample(
                round(t, 4),
                1_000_000 + 40_000 * n,
                n,
                1,
                2_000_000 + 60_000 * n,
                t * user_per_s,
                t * sys_per_s,
            )
        )
        t += step
    return out


def _stalling(until: float, stuck: int = 19_000) -> list[Sample]:
    """Python's threads near 20k under 1 GiB (a stored probe, rounded): 20,000 threads in 12 s,
    `ready` then, a 19 s sleep each, a thousand end in the 2 s after the last sleep is over, and
    then none, until the run is stopped; the kernel takes most of the CPU all along."""

    def threads(t: float) -> float:
        if t <= 12:
            return 10 + 20_000 * t / 12
        if t <= 31:
            return 20_010
        return max(stuck, 20_010 - 500 * (t - 31))

    return timeline(threads, until, step=0.25, user_per_s=0.1, sys_per_s=1.7)
