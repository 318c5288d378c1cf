"""Figure: ALG/OPT vs ε, one line per algorithm (and parameters), one panel per experiment."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from schedbench.pipeline.metrics import add_labels, broadcast_over_eps, eps_axis_label, successful  # noqa: E402


def ratio_vs_eps_grid(df, n_boot: int = 1000, seed: int = 0) -> sns.FacetGrid:
    """The figure as a seaborn FacetGrid (left open; :func:`plot_ratio_vs_eps` saves and closes).

    Mean ratio with 95 % bootstrap CI bands, log₂ x axis, legend sorted by label. Plain
    algorithms (no ε) are drawn flat. Only validated runs (status ``ok``) are drawn.
    """
    data = broadcast_over_eps(add_labels(successful(df)))
    data = data.astype({"label": object, "experiment": object})
    hue_order = sorted(data["label"].unique())
    experiments = sorted(data["experiment"].unique())
    sns.set_theme(style="whitegrid", context="paper")
    grid = sns.relplot(
        data=data, x="eps", y="ratio", hue="label", hue_order=hue_order, style="label",
        style_order=hue_order, col="experiment", col_order=experiments, kind="line",
        markers=True, dashes=False, errorbar=("ci", 95), n_boot=n_boot, seed=seed,
        facet_kws={"sharey": False}, height=3.0, aspect=1.2,
    )
    for ax in grid.axes.flat:
        ax.set_xscale("log", base=2)
    grid.set_titles("{col_name}")
    for exp, ax in zip(experiments, grid.axes.flat):
        ax.set_xlabel(eps_axis_label(data.loc[data["experiment"] == exp, "model"]))
    grid.set_ylabels("ALG / OPT")
    grid.legend.set_title("algorithm")
    return grid


def plot_ratio_vs_eps(df, path: str | os.PathLike, n_boot: int = 1000, seed: int = 0) -> list[str]:
    """Write the figure to ``path`` atomically; return the legend order."""
    grid = ratio_vs_eps_grid(df, n_boot=n_boot, seed=seed)
    hue_order = [t.get_text() for t in grid.legend.texts]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp{path.suffix}")
    grid.savefig(tmp)
    os.replace(tmp, path)
    plt.close(grid.figure)
    return hue_order
