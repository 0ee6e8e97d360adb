"""Limits that cap threads, processes and connections: read them (host), predict which one N hits
(predict; connections for the connections workload), raise them for a sweep and always put them
back (raising), and the RLIMIT_NOFILE each connections run gets (files)."""

from runner.limits.host import LABELS, Limits, read_limits
from runner.limits.predict import Hit, max_n, predict

__all__ = ["LABELS", "Hit", "Limits", "max_n", "predict", "read_limits"]
