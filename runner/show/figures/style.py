"""What every memrun figure shares: the style, the colours of "no figure here", notes under the
axes, value labels that always fit, and saving each figure once laid out in every format."""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # figures are files; never needs (or waits for) a display

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.text import Text

# Text stays text in SVG (searchable, testable, editable in a blog); light frame like the article.
STYLE = {
    "svg.fonttype": "none",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 9,
    "figure.dpi": 100,
    "savefig.dpi": 150,
}
MISSING = {"color": "#e3e3e3", "hatch": "///", "edgecolor": "#8c8c8c", "linewidth": 0.6}
NOTE_COLOR = "#555555"
FLAG_COLOR = "#a34700"


def _freeze(fig: Figure) -> None:
    """Lay out once, then freeze: constrained layout would otherwise run again for every format,
    and it is most of the cost (positions are fractions of the figure, so any dpi reuses them)."""
    fig.draw_without_rendering()
    fig.set_layout_engine("none")


# What a figure file carries beyond its drawing: nothing that changes from one run to the next
# or one machine to the next (matplotlib writes its version and, in SVG, the date), so that the
# committed figures are a function of the committed data and a test can redraw them byte for byte.
METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}, "pdf": {"Creator": None}}


def save(fig: Figure, out_dir: Path, stem: str, formats: Iterable[str]) -> list[Path]:
    """Write the figure in each format as out_dir/stem.FORMAT. Byte for byte the same for the same
    figure: SVG element ids are salted with the stem (never the process's own counter), and no
    date or software version is written."""
    paths = []
    try:
        _freeze(fig)
        with plt.rc_context({"svg.hashsalt": stem}):
            for fmt in formats:
                path = out_dir / f"{stem}.{fmt}"
                fig.savefig(path, format=fmt, metadata=METADATA.get(fmt))
                paths.append(path)
    finally:
        plt.close(fig)
    return paths


def svg_text(fig: Figure, salt: str) -> str:
    """The figure as SVG text, for pages that inline several figures. The salt makes its element
    ids (clip paths, markers, hatches) its own, so that one figure's ids never resolve to another
    figure's on the same page, and the same for every run, so that a committed page only changes
    when its figures do; no date is written, for the same reason."""
    try:
        _freeze(fig)
        out = io.StringIO()
        with plt.rc_context({"svg.hashsalt": salt}):
            fig.savefig(out, format="svg", metadata=METADATA["svg"])
    finally:
        plt.close(fig)
    return out.getvalue()


def footnote(fig: Figure, lines: list[str]) -> None:
    """Notes under the axes; supxlabel so that constrained layout reserves room for them."""
    fig.supxlabel("\n".join(x for x in lines if x), x=0.01, ha="left", fontsize=8, color=NOTE_COLOR)


def fit_xlim(fig: Figure, ax: Any, labels: list[tuple[Text, float, int]], margin_px: float = 8) -> None:
    """Widen the x range until every value label fits inside the axes.

    Labels are placed in points beside their bar, so how much data range they need depends on the
    final axes width; a fixed "max * 1.3" either clips long reasons or wastes half the figure.
    Each label is (text, anchor x in data, +1 if it extends right / -1 if left). One layout pass
    measures the labels (their size does not depend on the range); the range is then solved for.
    """
    for text, *_ in labels:
        text.set_in_layout(False)  # else the layout shrinks the axes to make room for it, twice over
    fig.draw_without_rendering()
    width = ax.get_window_extent().width
    needs = []
    for text, x, side in labels:
        ext = text.get_window_extent()
        anchor = ax.transData.transform((x, 0))[0]
        frac = ((ext.x1 - anchor if side > 0 else anchor - ext.x0) + margin_px) / width
        if frac < 0.8:  # a label wider than that cannot fit whatever the range; don't squash the bars
            needs.append((x, side, frac))
    log = ax.get_xscale() == "log"  # on a log axis the same solving holds for log10 of x
    if log:
        needs = [(math.log10(x), side, frac) for x, side, frac in needs]
    lo, hi = (math.log10(v) for v in ax.get_xlim()) if log else ax.get_xlim()
    for _ in range(20):  # both ends move each other; converges in a few rounds
        new_lo, new_hi = lo, hi
        for x, side, frac in needs:
            if side > 0:
                new_hi = max(new_hi, new_lo + (x - new_lo) / (1 - frac))
            else:
                new_lo = min(new_lo, new_hi - (new_hi - x) / (1 - frac))
        if (new_lo, new_hi) == (lo, hi):
            break
        lo, hi = new_lo, new_hi
    ax.set_xlim((10**lo, 10**hi) if log else (lo, hi))


def wrap(text: str, width: int = 150, lines: int = 2) -> list[str]:
    return textwrap.wrap(text, width, max_lines=lines, placeholder=" …") or [""]


MARKERS = "osD^v<>phX*"


def colors(names: list[str], family: dict[str, str]) -> dict[str, Any]:
    """One colour per variant; where the sweeps recorded families, one per family instead (in
    alphabetical order of family), so 25 bars read as a handful of groups."""
    if not any(family.values()):
        palette = plt.get_cmap("tab10" if len(names) <= 10 else "tab20").colors
        return {v: palette[i % len(palette)] for i, v in enumerate(names)}
    families = sorted(set(family.values()))
    palette = plt.get_cmap("tab10").colors
    return {v: palette[families.index(family[v]) % len(palette)] for v in names}


def marker_for(family: dict[str, str], variant: str) -> str:
    """Within one family (one colour), each variant keeps its own marker on the log-log chart."""
    same = sorted(v for v, f in family.items() if f == family.get(variant))
    return MARKERS[same.index(variant) % len(MARKERS)] if variant in same else "o"


def family_legend(ax: Any, colors: dict[str, Any], family: dict[str, str], shown: list[str]) -> None:
    """Colour key for the families present, when the sweeps recorded them."""
    families = sorted({family[v] for v in shown if family.get(v)})
    if not families:
        return
    handles = [Patch(color=colors[next(v for v in shown if family.get(v) == f)]) for f in families]
    ax.legend(handles, families, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, title="family")
