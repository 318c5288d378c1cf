"""The separation figure: rejection against speed on the adaptive immediate-dispatch construction
(the ``anr-flow`` adversary, docs/models/rejection-model.md §6.4–6.6), the claim
``rejection-vs-speed`` of the claims table.

A row per experiment that plays the construction (the tree with all jobs at time 0, the tree
with streams), a column per ε (at most three, the largest ones: six panels); in each panel the
forced ALG/OPT against the number of machines m (log axis) of the rejection-model algorithms at
ε (solid) and of the speed-model ones at speed 1+ε (dashed), at most
:data:`~schedbench.hall.figure_style.MAX_LINES_PER_PANEL` lines: the algorithms of
:data:`LINES` that ran, in that order. The adversary is deterministic given the algorithm, so a
point is the largest ratio over its seeds, not a mean (no band). Every drawn run passed the
validator and has a proven OPT; an over-budget rejection run is not drawn."""

from __future__ import annotations

import os

import matplotlib

from schedbench.hall.latex import eps_text

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from schedbench.hall.figure_style import MAX_LINES_PER_PANEL, TEXT_WIDTH, apply_style, save_figure  # noqa: E402
from schedbench.scheduling.stage.figures import MODEL_DASHES, algorithm_colours  # noqa: E402

__all__ = ["LINES", "MAX_EPS", "separation_data", "separation_figure", "plot_separation"]

#: the lines of a panel, in legend order: the paper's and the suite's rejection algorithms, then
#: the speed baselines (drop-every-k-flow, a rejection baseline of the paper, is in the report)
LINES = ("mft-unit", "edf-reject", "ll-fifo", "edf", "imd", "anand-batch")
#: the most ε columns (the largest ε values the config plays)
MAX_EPS = 3
_MARKERS = ("o", "s", "^", "D", "v", "X")


def _construction(rows) -> str:
    """The construction in words, from the adversary's parameters (``g_streams``, ``g_T``)."""
    streams = "g_streams" in rows and any(v is True or v == 1 for v in rows["g_streams"].dropna())
    jobs = f", T = {int(rows['g_T'].iloc[0])}" if "g_T" in rows and rows["g_T"].notna().any() else ""
    return ("tree, streams" if streams else "tree, at time 0") + jobs


def separation_data(runs):
    """The drawn points: per (experiment, ε, algorithm, m) the largest forced ratio over seeds,
    for validated runs with a proven OPT (rejection runs within their budget), ε > 0, the
    algorithms of :data:`LINES`, the :data:`MAX_EPS` largest ε."""
    sel = runs[
        (runs["family"] == "anr-flow")
        & (runs["status"] == "ok")
        & (runs["opt_status"] == "optimal")
        & (runs["eps"] > 0)
        & runs["algorithm"].isin(LINES)
        & runs["ratio"].notna()
    ]
    eps = sorted(sel["eps"].unique(), reverse=True)[:MAX_EPS]
    sel = sel[sel["eps"].isin(eps)]
    return sel.groupby(["experiment", "eps", "algorithm", "model", "m"], as_index=False)["ratio"].max()


def separation_figure(runs) -> plt.Figure:
    """The figure (module docstring); a one-panel note when the config plays no construction."""
    apply_style()
    points = separation_data(runs)
    if points.empty:
        fig, ax = plt.subplots(figsize=(TEXT_WIDTH, 1.2))
        ax.axis("off")
        ax.text(0.5, 0.5, "no immediate-dispatch construction in this config", ha="center", va="center")
        return fig
    experiments = sorted(points["experiment"].unique())
    eps_values = sorted(points["eps"].unique(), reverse=True)
    colours = algorithm_colours()
    fig, axes = plt.subplots(
        len(experiments),
        len(eps_values),
        figsize=(TEXT_WIDTH, 2.0 * len(experiments) + 0.6),
        squeeze=False,
        sharex=True,
        layout="constrained",
    )
    source = runs[runs["family"] == "anr-flow"]
    for r, exp in enumerate(experiments):
        for c, eps in enumerate(eps_values):
            ax = axes[r][c]
            rows = points[(points["experiment"] == exp) & (points["eps"] == eps)]
            drawn = [a for a in LINES if a in set(rows["algorithm"])][:MAX_LINES_PER_PANEL]
            for k, alg in enumerate(drawn):
                line = rows[rows["algorithm"] == alg].sort_values("m")
                model = line["model"].iloc[0]
                label = f"{alg} (rejects ε)" if model == "rejection" else f"{alg} (speed 1+ε)"
                ax.plot(
                    line["m"],
                    line["ratio"],
                    marker=_MARKERS[k % len(_MARKERS)],
                    markersize=5 - 0.5 * k,  # coinciding lines stay visible: the later ones smaller
                    linewidth=2.2 - 0.25 * k,
                    color=colours[alg],
                    dashes=MODEL_DASHES.get(model, ""),
                    label=label,
                )
            ax.set_xscale("log", base=2)
            if r == 0:
                ax.set_title(f"ε = {eps_text(eps)}")
            if r == len(experiments) - 1:
                ax.set_xlabel("machines m")
            # every panel has its own scale; the first column names the row's construction
            construction = f"{_construction(source[source['experiment'] == exp])}\n" if c == 0 else ""
            ax.set_ylabel(f"{construction}forced ALG/OPT")
    handles, labels = {}, {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    labels = [lab for alg in LINES for lab in handles if lab.startswith(alg + " ")]
    fig.legend([handles[lab] for lab in labels], labels, loc="outside lower center", ncol=3)
    return fig


def plot_separation(runs, path: str | os.PathLike) -> None:
    """Draw :func:`separation_figure` to ``path`` (a PDF and its PNG twin)."""
    save_figure(separation_figure(runs), path)
