"""Showing stored results: terminal text at this level (the words every view shares, a run's story,
the limits report), and the three kinds of output in their own folders: figures (matplotlib),
tables (Markdown, CSV, JSON) and exports (the HTML page, Bencher and github-action-benchmark)."""
