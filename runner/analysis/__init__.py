"""What stored results compute, apart from how they are shown: the report's records and the cells
the exports share, the comparison of two directories and its verdicts, the version axes, the naive
capacity and the connections workload's cells. Nothing here draws or formats for a reader."""
