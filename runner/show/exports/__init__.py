"""Documents and files for other tools: the self-contained HTML page, Bencher Metric Format and
github-action-benchmark's JSON, and the careful writing of a file."""
