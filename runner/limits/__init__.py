"""Limits that cap threads and processes: read them (host), predict which one N hits (predict),
raise them for a sweep and always put them back (raising)."""

from runner.limits.host import LABELS, Limits, read_limits
from runner.limits.predict import Hit, max_n, predict

__all__ = ["LABELS", "Hit", "Limits", "max_n", "predict", "read_limits"]
