"""Tables from stored results, as Markdown for people and CSV or JSON for tools."""
