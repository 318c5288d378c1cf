"""The appendix's full per-problem figures, paged so every panel can be read.

Each of these figures (ALG/OPT vs ε, rejected fraction vs ε, performance profiles) draws every
algorithm and parameter setting of every experiment of one problem. A page holds one row of
panels per experiment (at most :data:`~schedbench.hall.figure_style.ROWS_PER_PAGE` rows) and one
column per *class* of lines — the rejection model, speed 1+ε, and no augmentation at all (plain
algorithms and the speed-model algorithms at speed 1) — split further so that no panel carries
more than :data:`~schedbench.hall.figure_style.MAX_LINES_PER_PANEL` lines. A column's legend is
drawn once, below it. Colour is the algorithm's in every figure; the parameter variants of one
algorithm in a column differ in marker and line style. The pages are the pages of one PDF, each a
figure of the paper (``hall.paper`` includes page k); which experiments a figure draws, and so its
page count, follows from the config alone (:func:`figure_experiments`), so the paper knows it
before the figure is drawn."""

from __future__ import annotations

from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from schedbench.hall.figure_style import (  # noqa: E402
    PANEL_HEIGHT,
    PANEL_WIDTH,
    ROWS_PER_PAGE,
    TEXT_WIDTH,
    apply_style,
    split_lines,
)

__all__ = [
    "LINE_CLASSES",
    "KINDS",
    "line_class",
    "class_columns",
    "figure_experiments",
    "pages",
    "page_count",
    "line_styles",
    "paged_figures",
]

#: the columns of a page, in order: (class, title)
LINE_CLASSES = (
    ("rejection", "rejection model"),
    ("speed", "speed 1+ε"),
    ("unaugmented", "speed 1, no rejection"),
)
#: the paged figures (the kind in their file name ``<kind>_<problem>``)
KINDS = ("ratio_vs_eps", "rejection_vs_eps", "ecdf")
#: markers and dash patterns told apart in print, for the variants of one algorithm in a column
_MARKERS = ("o", "X", "s", "P", "D", "^")
_DASHES = ("", (4, 2), (1, 1.5), (3, 1, 1, 1), (6, 2), (2, 2))


def line_class(model: str) -> str:
    """The column a line of ``model`` is drawn in: ``reference`` (a speed-model algorithm at speed
    1) and ``plain`` go with no augmentation."""
    return model if model in ("rejection", "speed") else "unaugmented"


def class_columns(line_model: dict[str, str]) -> list[tuple[str, list[str]]]:
    """``(title, lines)`` per column: the lines (a dict line -> model) by class in
    :data:`LINE_CLASSES` order, sorted, split at the panel limit."""
    columns = []
    for cls, title in LINE_CLASSES:
        lines = sorted(line for line, model in line_model.items() if line_class(model) == cls)
        if lines:
            columns += split_lines(title, lines)
    return columns


def line_styles(lines: list[str], algorithm_of: dict[str, str], colours: dict[str, tuple]) -> dict[str, dict]:
    """Per line: colour (its algorithm's), marker and dash pattern (the k-th variant of an
    algorithm among ``lines`` gets the k-th of each)."""
    seen: dict[str, int] = {}
    out = {}
    for line in lines:
        k = seen.get(algorithm_of[line], 0)
        seen[algorithm_of[line]] = k + 1
        out[line] = {
            "color": colours[algorithm_of[line]],
            "marker": _MARKERS[k % len(_MARKERS)],
            "dashes": _DASHES[k % len(_DASHES)],
        }
    return out


def _swept(exp: dict) -> bool:
    """An adversary experiment with a parameter of more than one value (drawn against that
    parameter by the rounds figure, not against ε)."""
    params = exp.get("params") or {}
    return "adversary" in exp and any(isinstance(v, list) and len(v) > 1 for v in params.values())


def figure_experiments(experiments: dict, kind: str, problem: str) -> list[str]:
    """The experiments (sorted) a paged figure of ``kind`` draws for ``problem``, from the config's
    ``experiments`` section: ``ratio_vs_eps`` every experiment of the problem but the adversaries
    with a swept parameter; ``rejection_vs_eps`` those with a rejection-model algorithm;
    ``ecdf`` the instance-family experiments (an adversary has no instance set)."""
    from schedbench.scheduling.registry import get_algorithm
    from schedbench.scheduling.stage.config import experiment_problem

    if kind not in KINDS:
        raise ValueError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    names = sorted(e for e, exp in experiments.items() if experiment_problem(exp) == problem)
    if kind == "ratio_vs_eps":
        return [e for e in names if not _swept(experiments[e])]
    if kind == "rejection_vs_eps":
        return [e for e in names if any(get_algorithm(a).model == "rejection" for a in experiments[e]["algorithms"])]
    return [e for e in names if "family" in experiments[e]]


def pages(experiments: list[str]) -> list[list[str]]:
    """The experiments of each page, in order (one page, empty, when there are none)."""
    return [experiments[i : i + ROWS_PER_PAGE] for i in range(0, len(experiments), ROWS_PER_PAGE)] or [[]]


def page_count(n_experiments: int) -> int:
    """How many pages a paged figure of ``n_experiments`` rows has."""
    return len(pages(list(range(n_experiments))))


def paged_figures(
    data,
    experiments: list[str],
    draw: Callable,
    *,
    colours: dict[str, tuple],
    legend_title: str = "algorithm",
    empty: str = "no validated runs",
    markers: bool = True,
) -> list[plt.Figure]:
    """One figure per page: a row per experiment, a column per class of lines (see the module
    docstring). ``data`` has columns ``experiment``, ``line``, ``line_model``, ``algorithm``;
    ``colours``: algorithm -> colour (the one of every figure). ``draw(ax, rows, styles, title)``
    draws the rows of one panel (``styles``: line -> colour, marker, dashes), titles it ``title``
    (the experiment; the column's class above it in the top row) and labels its axes; the y label
    is kept in the first column only. A panel whose
    experiment has none of its column's lines says so. A page is as wide as the text (a panel at
    most :data:`~schedbench.hall.figure_style.PANEL_WIDTH`), so it prints at 100 %; ``markers``
    False leaves them out of the legend (lines drawn without)."""
    apply_style()
    figs = []
    for page in pages(experiments):
        rows_of_page = data[data["experiment"].isin(page)]
        line_model = dict(zip(rows_of_page["line"], rows_of_page["line_model"]))
        algorithm_of = dict(zip(rows_of_page["line"], rows_of_page["algorithm"]))
        columns = class_columns(line_model)
        if not page or not columns:
            fig, ax = plt.subplots(figsize=(6, 2))
            ax.axis("off")
            ax.text(0.5, 0.5, f"{empty} in this config", ha="center", va="center", wrap=True)
            figs.append(fig)
            continue
        ncols = len(columns)
        fig, axes = plt.subplots(
            len(page),
            ncols,
            figsize=(min(PANEL_WIDTH, TEXT_WIDTH / ncols) * ncols, 0.85 * PANEL_HEIGHT * len(page) + 1.4),
            squeeze=False,
            layout="constrained",
        )
        for c, (title, lines) in enumerate(columns):
            styles = line_styles(lines, algorithm_of, colours)
            for r, exp in enumerate(page):
                ax = axes[r, c]
                panel_title = f"{title}\n{exp}" if r == 0 else exp
                rows = rows_of_page[(rows_of_page["experiment"] == exp) & rows_of_page["line"].isin(lines)]
                if rows.empty:
                    ax.set_title(panel_title)
                    ax.text(0.5, 0.5, f"none in {exp}", ha="center", va="center", transform=ax.transAxes)
                    ax.set_xticks([])
                    ax.set_yticks([])
                    continue
                draw(ax, rows, styles, panel_title)
                if ax.get_legend() is not None:
                    ax.get_legend().remove()
                if c:
                    ax.set_ylabel("")
            handles = [
                Line2D(
                    [],
                    [],
                    color=styles[line]["color"],
                    marker=styles[line]["marker"] if markers else None,
                    linestyle=(0, styles[line]["dashes"]) if styles[line]["dashes"] else "-",
                    label=line,
                )
                for line in lines
            ]
            axes[-1, c].legend(
                handles=handles,
                title=legend_title,
                loc="upper center",
                bbox_to_anchor=(0.5, -0.28),
                fontsize="small",
                title_fontsize="small",
                frameon=False,
            )
        figs.append(fig)
    return figs
