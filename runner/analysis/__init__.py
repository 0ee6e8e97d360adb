"""What stored results compute, apart from how they are shown: the report's records and the cells
the exports share, the comparison of two directories and its verdicts, the version axes, and the naive
capacity (a workload's own cells live in its package). Nothing here draws or formats for a reader."""
