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

from schedbench.hall.figure_style import (  # noqa: E402
    PANEL_HEIGHT,
    PANEL_WIDTH,
    apply_style,
    few_note,
    save_figure,
)
from schedbench.hall.stats import MIN_SUMMARY_N  # noqa: E402
from schedbench.scheduling.stage.figures import (  # noqa: E402
    algorithm_colours,
    drawn_units,
    fewest_instances,
    ratio_title,
)
from schedbench.scheduling.stage.metrics import add_labels, successful  # noqa: E402

__all__ = [
    "ROLES",
    "headline_finding",
    "findings_macros_tex",
    "headline_lines",
    "headline_experiments",
    "headline_figure",
    "plot_headline",
]

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


def _lines(data: pd.DataFrame, experiment: str) -> dict[str, tuple[str, str]]:
    """role → (label, algorithm) of one panel, from the prepared rows of :func:`_rows`."""
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


def _panels(data: pd.DataFrame) -> dict[str, dict[str, tuple[str, str]]]:
    """experiment → its lines, for the experiments with ε > 0 and at least two of the roles."""
    out = {}
    for exp in sorted(data["experiment"].unique()):
        if (data.loc[data["experiment"] == exp, "eps"] > 0).any():
            lines = _lines(data, exp)
            if len(lines) >= 2:
                out[exp] = lines
    return out


def headline_lines(df: pd.DataFrame, problem: str, experiment: str) -> dict[str, tuple[str, str]]:
    """role → (label, algorithm) of one panel's lines (a role without runs there is left out)."""
    return _lines(_rows(df, problem), experiment)


def headline_experiments(df: pd.DataFrame, problem: str) -> list[str]:
    """The panels: the problem's experiments with ε > 0 and at least two of the roles."""
    return list(_panels(_rows(df, problem)))


def headline_figure(df: pd.DataFrame, problem: str, colours: dict | None = None) -> plt.Figure:
    """The headline figure of ``problem`` (module docstring); a one-panel note when the config
    has no experiment to draw for it."""
    apply_style()
    data = _rows(df, problem)
    panels = _panels(data)
    experiments = list(panels)
    if not experiments:
        fig, ax = plt.subplots(figsize=(PANEL_WIDTH, PANEL_HEIGHT / 2))
        ax.axis("off")
        ax.text(0.5, 0.5, f"no {problem} experiment to compare in this config", ha="center", va="center")
        return fig
    colours = colours or algorithm_colours(data["algorithm"])
    ncols = min(2, len(experiments))  # two panels fill the text width at print size: no shrinking
    nrows = int(np.ceil(len(experiments) / ncols))
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(PANEL_WIDTH * ncols, (0.8 * PANEL_HEIGHT + 0.6) * nrows),
        squeeze=False,
        layout="constrained",
    )
    for ax, exp in zip(axes.flat, experiments):
        rows = data[data["experiment"] == exp]
        grid = sorted(rows.loc[rows["eps"] > 0, "eps"].unique())
        lines = panels[exp]
        # a drawn line's points: its ε (a plain line, without one: all its runs at one point)
        drawn = rows[rows["label"].isin([label for label, _ in lines.values()])]
        drawn = drawn.assign(point=drawn["eps"].where(drawn["model"] != "plain", 0.0))
        n = fewest_instances(drawn, ["label", "point"])  # the thinnest point of a drawn line
        few = n < MIN_SUMMARY_N
        for role, _, style, prefix in ROLES:
            if role not in lines:
                continue
            label, algorithm = lines[role]
            sel = drawn[drawn["label"] == label]
            text = f"{prefix}: {label}".replace(" (", "\n    (", 1) if len(label) > 24 else f"{prefix}: {label}"
            if few:  # fewer than MIN_SUMMARY_N instances: each instance's curve, no mean
                for k, (_, one) in enumerate(sel.groupby(drawn_units(sel, "label", "point"), sort=True)):
                    if role == "plain":
                        x, y = grid, [one["ratio"].mean()] * len(grid)  # one run: its own value
                    else:
                        curve = one[one["eps"] > 0].set_index("eps")["ratio"].sort_index()
                        x, y = curve.index.to_numpy(), curve.to_numpy()
                    ax.plot(
                        x,
                        y,
                        ls=style,
                        marker="o",
                        ms=3,
                        lw=1.0,
                        alpha=0.8,
                        color=colours[algorithm],
                        label=text if k == 0 else None,
                    )
                continue
            if role == "plain":  # no ε: a flat line at its mean over the panel's ε grid
                x, y = grid, [sel["ratio"].mean()] * len(grid)
            else:
                curve = sel[sel["eps"] > 0].groupby("eps")["ratio"].mean().sort_index()
                x, y = curve.index.to_numpy(), curve.to_numpy()
            ax.plot(x, y, ls=style, marker="o", ms=3.5, lw=1.4, color=colours[algorithm], label=text)
        ax.set_xscale("log", base=2)
        ax.set_title(ratio_title(exp + (few_note(n) if few else ""), rows))
        ax.set_xlabel("ε")
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.28), frameon=False)  # below
    for ax in axes.flat[len(experiments) :]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel("ALG / OPT")  # a mean over instances, or each instance (the title says which)
    return fig


def plot_headline(df: pd.DataFrame, problem: str, path: str | os.PathLike) -> list[str]:
    """Write the headline figure of ``problem`` to ``path`` (and its PNG twin); return its panels."""
    save_figure(headline_figure(df, problem), path)
    return headline_experiments(df, problem)


def _g(x: float) -> str:
    return f"{x:.3g}"


def headline_finding(df: pd.DataFrame, problem: str) -> str:
    """The problem's finding in one sentence (plain text, generated): at each experiment's
    smallest ε, how often the best rejection-model setting is at or below the best in-model
    speed baseline (the plain baseline where the problem has no speed model), with the median
    ratios of the three roles."""
    data = _rows(df, problem)
    panels = _panels(data)
    experiments = list(panels)
    if not experiments:
        return "This config has no experiment of this problem that compares the models."
    at_min: dict[str, list[float]] = {role: [] for role, *_ in ROLES}
    duels = {"speed": [0, 0], "plain": [0, 0]}  # partner -> [experiments, rejection at or below]
    for exp in experiments:
        rows = data[data["experiment"] == exp]
        eps = rows.loc[rows["eps"] > 0, "eps"].min()
        value = {}
        for role, (label, _) in panels[exp].items():
            sel = rows[rows["label"] == label]
            sel = sel if role == "plain" else sel[sel["eps"] == eps]
            if len(sel):
                value[role] = float(sel["ratio"].mean())
                at_min[role].append(value[role])
        partner = "speed" if "speed" in value else "plain"
        if "rejection" in value and partner in value:
            duels[partner][0] += 1
            duels[partner][1] += value["rejection"] <= value[partner]
    names = {"speed": "the best speed-augmented baseline", "plain": "the plain baseline"}
    said = [f"{wins} of {n} experiments against {names[partner]}" for partner, (n, wins) in duels.items() if n]
    head = (
        "At each experiment's smallest ε, the best rejection-model algorithm is at or below its rival in "
        + " and ".join(said)
        if said
        else f"No experiment of this config runs a rejection-model algorithm beside a baseline ({len(experiments)} drawn)"
    )
    roles = {"rejection": "rejecting ε", "speed": "at speed 1+ε", "plain": "plain"}
    medians = ", ".join(f"{_g(float(np.median(at_min[r])))} {roles[r]}" for r, *_ in ROLES if at_min[r])
    return head + f" (median ALG/OPT there: {medians})."


def findings_macros_tex(df: pd.DataFrame, problems) -> str:
    """``\\Finding<Problem>`` for every problem (a problem the config lacks says so), as LaTeX."""
    from schedbench.hall.latex import tex_text

    lines = ["% Generated by schedbench (headline.findings_macros_tex); do not edit."]
    for problem in problems:
        name = "Finding" + problem.capitalize()
        lines.append(f"\\newcommand{{\\{name}}}{{{tex_text(headline_finding(df, problem))}}}")
    return "\n".join(lines) + "\n"
