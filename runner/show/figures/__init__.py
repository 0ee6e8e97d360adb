"""Figures drawn with matplotlib from stored results: one module per kind of figure, style shared."""
