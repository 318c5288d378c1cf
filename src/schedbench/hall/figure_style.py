"""The one style of every figure (every wing alike): seaborn's ``whitegrid`` theme in
the ``paper`` context, the colour-blind-safe ``colorblind`` palette (Wong's 8 colours plus two,
extended with ``husl`` past 10 entries), one font size scale and the standard figure sizes."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from schedbench.hall.stats import MIN_SUMMARY_N  # noqa: E402

__all__ = [
    "PALETTE",
    "FONT_SCALE",
    "PANEL_WIDTH",
    "PANEL_HEIGHT",
    "TEXT_WIDTH",
    "BOUND_FLAG",
    "MAX_LINES_PER_PANEL",
    "ROWS_PER_PAGE",
    "few_note",
    "split_lines",
    "RC",
    "apply_style",
    "palette",
    "colour_map",
    "save_figure",
    "save_pages",
]

#: the colour-blind-safe seaborn palette every figure draws from
PALETTE = "colorblind"
#: seaborn font scale of the ``paper`` context (8-pt ticks at scale 1)
FONT_SCALE = 1.0
#: width and height (inches) of one panel; figures are whole multiples of these
PANEL_WIDTH, PANEL_HEIGHT = 3.2, 2.8
#: the paper's text width (inches: A4 with 2.5 cm margins); a figure this wide prints at 100 %
TEXT_WIDTH = 6.3
#: Appended to the title of an ALG/OPT panel with an experiment whose OPT is not proven optimal:
#: its ratios divide by the proven lower bound (the tables say so too; the captions explain it).
BOUND_FLAG = " (OPT a bound)"
#: the most lines (legend entries) a panel may carry, in every figure of the paper (a figure with
#: more lines splits them over several panels: :func:`split_lines`)
MAX_LINES_PER_PANEL = 6
#: the most rows of panels on one page of a paged figure (the appendix's full per-problem figures:
#: one row per experiment, a PDF page per this many, each page a figure of the paper)
ROWS_PER_PAGE = 3


def few_note(n: int) -> str:
    """The title suffix of a panel drawn instance by instance (``n`` < :data:`MIN_SUMMARY_N`)."""
    return f" (n = {n} < {MIN_SUMMARY_N}: each instance)"


#: matplotlib settings on top of the theme: embedded TrueType fonts (the PDF is searchable and
#: the paper's fonts stay consistent) and a PNG resolution the HTML report shows crisply
RC = {"pdf.fonttype": 42, "ps.fonttype": 42, "savefig.dpi": 150, "legend.frameon": True, "axes.titlesize": "medium"}


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


def split_lines(title: str, lines: list[str]) -> list[tuple[str, list[str]]]:
    """One panel's ``lines`` as panels of at most :data:`MAX_LINES_PER_PANEL`, in order, each
    ``(title, lines)``; titled "title (k of n)" when split."""
    chunks = [lines[i : i + MAX_LINES_PER_PANEL] for i in range(0, len(lines), MAX_LINES_PER_PANEL)]
    return [(title + (f" ({k + 1} of {len(chunks)})" if len(chunks) > 1 else ""), c) for k, c in enumerate(chunks)]


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


def save_pages(figs: list, path: str | os.PathLike) -> None:
    """Write ``figs`` as the pages of one PDF at ``path`` (the paper includes page k with
    ``\\includegraphics[page=k]``) and a ``.png`` twin with the pages one below the other (the
    HTML report's), both through a temporary file and a rename; close the figures."""
    import io

    import numpy as np
    from matplotlib.backends.backend_pdf import PdfPages

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp{path.suffix}")
    images = []
    with PdfPages(tmp, metadata={"Creator": "schedbench"}) as pdf:
        for fig in figs:
            pdf.savefig(fig, bbox_inches="tight")
            buf = io.BytesIO()
            fig.savefig(buf, format="png", bbox_inches="tight")
            buf.seek(0)
            images.append(plt.imread(buf, format="png"))
            plt.close(fig)
    os.replace(tmp, path)
    if path.suffix != ".pdf":
        return
    width = max(im.shape[1] for im in images)
    padded = [np.pad(im, ((0, 0), (0, width - im.shape[1]), (0, 0)), constant_values=1.0) for im in images]
    png = path.with_suffix(".png")
    tmp_png = png.with_name(f".{png.stem}.tmp.png")
    plt.imsave(tmp_png, np.concatenate(padded, axis=0))
    os.replace(tmp_png, png)
