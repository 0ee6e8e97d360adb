"""Several runs in flight at once, overlapping only where a run is idle (its hold): the rules
(admit), what a run will do before it runs (predict), the memory the machine may still give
(memory), the scheduler that drives lanes of runs by those rules (scheduler), the same rules on a
virtual clock (simulate), and how many runs may be in flight by default (jobs)."""
