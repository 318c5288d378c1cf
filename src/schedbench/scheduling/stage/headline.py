"""The paper's headline figure per problem (its first section): the best rejection-model
algorithm against the best speed-augmented baseline and the plain baseline, ALG/OPT vs ε, one
panel per experiment — three lines per panel, so the comparison the paper is about reads at a
glance; the full panels, every algorithm and parameter setting, are the problem's own figures.

"Best" is chosen per panel (experiment): the setting (algorithm and varying parameters,
:func:`~schedbench.scheduling.stage.metrics.add_labels`) with the lowest mean ALG/OPT over its
validated runs there at ε > 0; ties go to the first label. Speed baselines are those inside the
model (a migratory reference such as ``global-edf`` is not a baseline). The plain baseline is
``greedy`` where it ran, else the best plain setting. Each panel's legend names its three lines;
colours are the algorithms' colours in every figure (:func:`algorithm_colours`), line styles the
roles."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from schedbench.hall.figure_style import PANEL_HEIGHT, PANEL_WIDTH, apply_style, save_figure  # noqa: E402
from schedbench.scheduling.stage.figures import algorithm_colours  # noqa: E402
from schedbench.scheduling.stage.metrics import add_labels, successful  # noqa: E402

__all__ = ["ROLES", "headline_lines", "headline_experiments", "headline_figure", "plot_headline"]

#: The lines of a headline panel: (role, model, line style, legend prefix)
ROLES = (
    ("rejection", "rejection", "-", "reject ε"),
    ("speed", "speed", "--", "speed 1+ε"),
    ("plain", "plain", ":", "plain"),
)


def _rows(df: pd.DataFrame, problem: str) -> pd.DataFrame:
    data = successful(df[df["problem"] == problem])
    migratory = data["migratory"].fillna(False).astype(bool) if "migratory" in data else False
    data = data[data["ratio"].notna() & ~((data["model"] == "speed") & ~(data["eps"] > 0)) & ~migratory]
    return add_labels(data) if len(data) else data.assign(label=pd.Series(dtype=object))


def headline_lines(df: pd.DataFrame, problem: str, experiment: str) -> dict[str, tuple[str, str]]:
    """role → (label, algorithm) of one panel's lines (a role without runs there is left out)."""
    data = _rows(df, problem)
    data = data[data["experiment"] == experiment]
    out = {}
    for role, model, _, _ in ROLES:
        rows = data[data["model"] == model]
        if model != "plain":
            rows = rows[rows["eps"] > 0]
        if rows.empty:
            continue
        if model == "plain" and (rows["algorithm"] == "greedy").any():
            rows = rows[rows["algorithm"] == "greedy"]
        means = rows.groupby("label")["ratio"].mean()
        label = str(means.sort_values(kind="stable").index[0])  # the lowest mean; ties by label
        out[role] = (label, str(rows.loc[rows["label"] == label, "algorithm"].iloc[0]))
    return out


def headline_experiments(df: pd.DataFrame, problem: str) -> list[str]:
    """The panels: the problem's experiments with ε > 0 and at least two of the roles."""
    data = _rows(df, problem)
    out = []
    for exp in sorted(data["experiment"].unique()):
        if (data.loc[data["experiment"] == exp, "eps"] > 0).any() and len(headline_lines(df, problem, exp)) >= 2:
            out.append(exp)
    return out


def headline_figure(df: pd.DataFrame, problem: str, colours: dict | None = None) -> plt.Figure:
    """The headline figure of ``problem`` (module docstring); a one-panel note when the config
    has no experiment to draw for it."""
    apply_style()
    experiments = headline_experiments(df, problem)
    if not experiments:
        fig, ax = plt.subplots(figsize=(PANEL_WIDTH, PANEL_HEIGHT / 2))
        ax.axis("off")
        ax.text(0.5, 0.5, f"no {problem} experiment to compare in this config", ha="center", va="center")
        return fig
    data = _rows(df, problem)
    colours = colours or algorithm_colours(data["algorithm"])
    ncols = min(3, len(experiments))
    nrows = int(np.ceil(len(experiments) / ncols))
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(PANEL_WIDTH * ncols, PANEL_HEIGHT * nrows), squeeze=False, layout="constrained"
    )
    for ax, exp in zip(axes.flat, experiments):
        rows = data[data["experiment"] == exp]
        grid = sorted(rows.loc[rows["eps"] > 0, "eps"].unique())
        lines = headline_lines(df, problem, exp)
        for role, _, style, prefix in ROLES:
            if role not in lines:
                continue
            label, algorithm = lines[role]
            sel = rows[rows["label"] == label]
            if role == "plain":  # no ε: a flat line at its mean over the panel's ε grid
                x, y = grid, [sel["ratio"].mean()] * len(grid)
            else:
                curve = sel[sel["eps"] > 0].groupby("eps")["ratio"].mean().sort_index()
                x, y = curve.index.to_numpy(), curve.to_numpy()
            ax.plot(x, y, ls=style, marker="o", ms=3.5, lw=1.4, color=colours[algorithm], label=f"{prefix}: {label}")
        ax.set_xscale("log", base=2)
        ax.set_title(exp)
        ax.set_xlabel("ε")
        ax.legend(fontsize="x-small", loc="best")
    for ax in axes.flat[len(experiments) :]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel("mean ALG / OPT")
    return fig


def plot_headline(df: pd.DataFrame, problem: str, path: str | os.PathLike) -> list[str]:
    """Write the headline figure of ``problem`` to ``path`` (and its PNG twin); return its panels."""
    save_figure(headline_figure(df, problem), path)
    return headline_experiments(df, problem)
