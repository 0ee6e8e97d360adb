"""`memrun capacity`: the largest N whose run is valid under a memory cgroup capped at a budget.

Peak memory at a fixed N is what the 2023 article measured; sizing a service asks the inverse.
It is not a division: GC runtimes size their heaps from the cgroup limit, OS threads cost kernel
memory that RSS never shows but the cgroup charges, and some runtimes fail cleanly at a limit while
others are OOM-killed. So it is searched for, with real runs under the real cap: a prediction from
stored sweeps (or two calibration runs), steps along the line the fitting probes' memory draws, a
bracket, bisection to within 2 % of N, and the answer run until it has fitted twice (three
times, a 5 % step below the first failure, where runs pass or fail at random).

Every probe is a run record (kind "capacity-probe", memory_cap = the budget) in the same store as
sweeps; each answer is a line of capacity.jsonl. An answer is computed from every stored run of
its boundary (evidence), so an interrupted search loses nothing: the next one counts its probes.
A probe fits when its tasks held under the cap through their sleep, whatever its exit then does
(stall); `--check` re-measures settled answers (check).
"""

from runner.capacity.check import BoundaryCheck, run_checks
from runner.capacity.probes import CapacityOptions, CapacityProgress
from runner.capacity.run import label_of, mine, run_capacity
from runner.capacity.search import TOLERANCE, search
from runner.capacity.timing import interpolate
from runner.results.capacity import CapacityResult

__all__ = [
    "TOLERANCE",
    "BoundaryCheck",
    "CapacityOptions",
    "CapacityProgress",
    "CapacityResult",
    "interpolate",
    "label_of",
    "mine",
    "run_capacity",
    "run_checks",
    "search",
]
