"""How many runs a sweep keeps in flight by default (`memrun sweep --jobs`).

Chosen from measurements, not from the core count: a run in flight beside others is holding
(asleep), so the limit is not the CPU but how many holds can be stacked inside one another before
the earliest wakes. The reference sweep (plots/data, sweep 20261126T025419-1f83eb: 111 runs of
29 variants at N = 1, 10k, 100k and 1M) replayed under these rules on a virtual clock with the
runs' measured phases (`scripts/simulate_sweep.py plots/data --sweep 20261126T025419-1f83eb`)
takes 26.6 min with 1 run in flight, 15.7 with 2, 10.5 with 4, 9.3 with 6, 8.8 with 8, 8.3 with
12 and 8.0 with 16. Past 8 the gain is under a minute while memrun samples every run in flight
20 times a second (its own CPU, beside the one run that spawns): 8 it is.
"""

DEFAULT_JOBS = 8
