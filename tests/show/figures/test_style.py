"""runner.show.figures.style: a figure file is a function of its drawing, nothing else."""

from __future__ import annotations

import matplotlib.pyplot as plt

from runner.show.figures.style import save, svg_text


def _drawing():  # type: ignore[no-untyped-def]
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.bar([0, 1], [2, 3], hatch="///")  # a hatch and a clip path: SVG ids that must not vary
    ax.set_title("memory")
    return fig


def test_the_same_figure_saved_twice_is_the_same_bytes(tmp_path):
    """No date, no software version, and SVG ids salted by the stem, not by a process counter:
    the committed figures can be redrawn byte for byte (runner.derive checks that they are)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = save(_drawing(), tmp_path / "a", "bars", ("png", "svg"))
    plt.figure()  # another figure between them moves matplotlib's own counters
    second = save(_drawing(), tmp_path / "b", "bars", ("png", "svg"))
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    svg = first[1].read_text()
    assert "<dc:date>" not in svg and "Matplotlib" not in svg
    png = first[0].read_bytes()
    assert b"Software" not in png and b"matplotlib" not in png.lower()


def test_two_stems_give_two_sets_of_ids():
    """A page that inlines two figures must not resolve one figure's clip path to the other's."""
    one, two = svg_text(_drawing(), salt="one"), svg_text(_drawing(), salt="two")
    assert one != two and svg_text(_drawing(), salt="one") == one
