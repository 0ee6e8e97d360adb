"""Judging a run: whether its figure can be published (verdict, with the rules in their own module),
what its timeline shows about why not (diagnose), and what proves from outside that its N waits
overlapped (overlap). Generic rules only: what a runtime prints lives in its manifest."""
