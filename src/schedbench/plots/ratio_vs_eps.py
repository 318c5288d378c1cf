"""Figure: ALG/OPT vs ε, one line per algorithm (and parameters), one panel per experiment."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from ..metrics import add_labels, broadcast_over_eps, successful  # noqa: E402


def plot_ratio_vs_eps(df, path: str | os.PathLike, n_boot: int = 1000, seed: int = 0) -> list[str]:
    """Mean ratio with 95 % bootstrap CI bands, log₂ x axis. Plain algorithms (no ε) are flat.

    Ratios over a non-proven OPT divide by its lower bound; the caption says how many.
    Returns the hue order (legend order) used.
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
    grid.set_axis_labels("ε (rejection fraction)", "ALG / OPT")
    grid.set_titles("{col_name}")
    grid.legend.set_title("algorithm")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp{path.suffix}")
    grid.savefig(tmp)
    os.replace(tmp, path)
    plt.close(grid.figure)
    return hue_order
