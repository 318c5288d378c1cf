"""The one style of every figure (seed 000, 002 and 003 alike): seaborn's ``whitegrid`` theme in
the ``paper`` context, the colour-blind-safe ``colorblind`` palette (Wong's 8 colours plus two,
extended with ``husl`` past 10 entries), one font size scale and the standard figure sizes."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

__all__ = [
    "PALETTE",
    "FONT_SCALE",
    "PANEL_WIDTH",
    "PANEL_HEIGHT",
    "MAX_LINES_PER_PANEL",
    "RC",
    "apply_style",
    "palette",
    "colour_map",
    "ECDF_DASHES",
    "save_figure",
]

#: the colour-blind-safe seaborn palette every figure draws from
PALETTE = "colorblind"
#: seaborn font scale of the ``paper`` context (8-pt ticks at scale 1)
FONT_SCALE = 1.0
#: width and height (inches) of one panel; figures are whole multiples of these
PANEL_WIDTH, PANEL_HEIGHT = 3.2, 2.8
#: the most lines (legend entries) a panel of the paper's body may carry; the appendix's full
#: per-problem panels draw every algorithm and are exempt
MAX_LINES_PER_PANEL = 6
#: matplotlib settings on top of the theme: embedded TrueType fonts (the PDF is searchable and
#: the paper's fonts stay consistent) and a PNG resolution the HTML report shows crisply
RC = {"pdf.fonttype": 42, "ps.fonttype": 42, "savefig.dpi": 150, "legend.frameon": True, "axes.titlesize": "medium"}
#: line styles of the ECDF figure per model (the same as the ratio figure's)
ECDF_DASHES = {"rejection": "", "speed": (4, 2), "plain": (1, 1.5), "reference": (1, 1.5)}


def apply_style() -> None:
    """Set the theme (idempotent; every figure function calls it before drawing)."""
    sns.set_theme(style="whitegrid", context="paper", palette=PALETTE, font_scale=FONT_SCALE, rc=RC)


def palette(n: int) -> list[tuple[float, float, float]]:
    """``n`` colours: the colour-blind palette's 10, then ``husl`` colours past them."""
    colours = sns.color_palette(PALETTE, min(n, 10))
    if n > 10:
        colours += sns.color_palette("husl", n - 10)
    return list(colours)


def colour_map(values, key=None) -> dict:
    """One colour per value, assigned in sorted order (``key`` as for :func:`sorted`), so the same
    set of values always gets the same colours."""
    ordered = sorted(set(values), key=key)
    return dict(zip(ordered, palette(len(ordered))))


def save_figure(fig, path: str | os.PathLike) -> None:
    """Write ``fig`` to ``path`` through a temporary file and a rename (never half-written), close it.

    A ``.pdf`` (the paper's) gets a ``.png`` twin beside it, written the same way: the HTML
    report shows the PNG (a browser draws it inline)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    targets = [path] + ([path.with_suffix(".png")] if path.suffix == ".pdf" else [])
    for target in targets:
        tmp = target.with_name(f".{target.stem}.tmp{target.suffix}")
        fig.savefig(tmp, bbox_inches="tight", metadata={"Creator": "schedbench"} if target.suffix == ".pdf" else None)
        os.replace(tmp, target)
    plt.close(fig)
