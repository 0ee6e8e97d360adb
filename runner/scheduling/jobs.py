"""How many runs a sweep keeps in flight by default (`memrun sweep --jobs`).

Chosen from measurements, not from the core count: a run in flight beside others is holding
(asleep), so the limit is not the CPU but how many holds can be stacked inside one another before
the earliest wakes. The reference sweep (plots/data, 111 runs, 29 variants at N = 1, 10k, 100k
and 1M) replayed under these rules on a virtual clock (scripts/simulate_sweep.py, with the runs'
measured phases) took 26.2 min with 1, 16.2 with 2, 12.6 with 4, 11.6 with 6, 11.1 with 8 and
10.6 min with 12 or 16 in flight, in the planned order; with the longest predicted spawn first
within each N, 10.7, 9.7, 9.2 and 8.7 min with 4, 6, 8 and 12. Past 8 the gain is under a minute,
while memrun samples every run in flight 20 times a second (its own CPU, beside the one run that
spawns); 8 it is. The real sweeps behind these words are in the notes of issue 39.
"""

DEFAULT_JOBS = 8
