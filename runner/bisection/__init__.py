"""`memrun bisect`: the search (pure: search.py, given a function that measures a version) and the
prober that measures each version as a small sweep of its own (probe.py)."""

from runner.bisection.search import MAX_REPEATS, Outcome, Probe, another_change, built, search

__all__ = ["MAX_REPEATS", "Outcome", "Probe", "another_change", "built", "search"]
