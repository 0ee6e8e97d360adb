"""The formats of `memrun report`, one exporter per module behind one protocol (exporter.py) and
found by name in registry.py: Markdown, CSV, JSON, the self-contained HTML page, Bencher Metric
Format and github-action-benchmark's JSON; and the careful writing of a file."""
