"""The worst-case search's figures: the worst ALG/OPT found against m, per algorithm; and the ε
sweep (``search.eps_sweep``): the worst ratio found against 1/ε, one figure per problem."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from schedbench.hall.figure_style import PANEL_HEIGHT, PANEL_WIDTH, apply_style, colour_map, save_figure  # noqa: E402

__all__ = ["worst_case_figure", "plot_worst_cases", "eps_sweep_figure", "plot_eps_sweep"]

#: The panels of an ε-sweep figure: one per model present, in this order.
SWEEP_PANELS = (("rejection", "rejection model (reject ≤ ε)"), ("speed", "speed 1 + ε"))


def worst_case_figure(table) -> plt.Figure:
    """Worst ratio found vs m, one line per (algorithm, ε); a filled marker is a proved worst
    case (CP-SAT, no worse instance in the searched space), a hollow one a best-found instance
    (black-box, or CP-SAT stopped by its limit); dotted: the proven upper bound where there is
    one. Rejection-fraction hunts are in the table only."""
    data = table[table["objective_kind"] == "ratio"] if not table.empty else table
    sns.set_theme(style="whitegrid", context="paper")
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    if data.empty:
        ax.axis("off")
        ax.text(0.5, 0.5, "no ratio search tasks in this config", ha="center", va="center")
        return fig
    data = data.assign(line=[a + ("" if e != e else f", ε={e:g}") for a, e in zip(data["algorithm"], data["eps"])])
    lines = sorted(data["line"].unique())
    colours = dict(
        zip(
            lines,
            sns.color_palette("colorblind", len(lines)) if len(lines) <= 10 else sns.color_palette("husl", len(lines)),
        )
    )
    for line in lines:
        rows = (
            data[data["line"] == line]
            .groupby("m", as_index=False)
            .agg(ratio=("ratio", "max"), proved=("proved", "all"), bound=("ratio_bound", "max"))
        )
        c = colours[line]
        ax.plot(rows["m"], rows["ratio"], color=c, lw=1.0, label=line)
        for proved, marker_face in ((True, c), (False, "white")):
            sel = rows[rows["proved"] == proved]
            ax.scatter(sel["m"], sel["ratio"], color=c, facecolors=marker_face, edgecolors=c, zorder=3, s=28)
        if rows["bound"].notna().any():
            ax.plot(rows["m"], rows["bound"], color=c, lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("machines m")
    ax.set_ylabel("worst ALG / OPT found (filled: proved; dotted: proven bound)")
    ax.legend(title="algorithm", fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


def plot_worst_cases(table, path: str | os.PathLike) -> None:
    save_figure(worst_case_figure(table), path)


def eps_sweep_figure(points, problem: str, colours: dict | None = None) -> plt.Figure:
    """Worst ALG/OPT found vs 1/ε on log–log axes for one problem, a panel per model (rejection,
    speed augmentation): per algorithm a solid line (circles) for the worst found, crosses for
    the best the hand-made adversaries force at that ε and m, and a dotted line for the proven
    bound at the instance's OPT where the algorithm has one (clipped above the panel when it
    is far above the finds; its exponent is in the table). ``colours``: algorithm → colour,
    the same in every problem's figure."""
    apply_style()
    data = points[points["problem"] == problem]
    panels = [(model, title) for model, title in SWEEP_PANELS if (data["model"] == model).any()]
    if not panels:
        fig, ax = plt.subplots(figsize=(PANEL_WIDTH, PANEL_HEIGHT))
        ax.axis("off")
        ax.text(0.5, 0.5, f"no ε sweep for {problem} in this config", ha="center", va="center")
        return fig
    colours = colours or colour_map(data["algorithm"])
    fig, axes = plt.subplots(1, len(panels), figsize=(PANEL_WIDTH * len(panels), PANEL_HEIGHT), squeeze=False)
    for ax, (model, title) in zip(axes[0], panels):
        sel = data[data["model"] == model]
        top = 1.0
        for algorithm, g in sel.groupby("algorithm", sort=True):
            g = g.sort_values("inv_eps")
            top = max(top, float(g["ratio"].max()), float(g["adversary_best"].max(skipna=True) or 1.0))
        for algorithm, g in sel.groupby("algorithm", sort=True):
            g = g.sort_values("inv_eps")
            c = colours[algorithm]
            label = algorithm
            bound = g["ratio_bound"]
            if bound.notna().any() and float(bound.max()) > top * 4:
                label += f" (bound ≥ {float(bound.min()):.3g}, above)"
            ax.plot(g["inv_eps"], g["ratio"], color=c, lw=1.2, marker="o", ms=3.5, label=label)
            ax.scatter(g["inv_eps"], g["adversary_best"], color=c, marker="x", s=22, zorder=3)
            if bound.notna().any():
                ax.plot(g["inv_eps"], bound, color=c, lw=0.9, ls=":")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_ylim(0.9, top * 4)
        ax.set_xlabel("1/ε")
        ax.set_title(title)
        ax.legend(fontsize="small", loc="upper left")
    axes[0][0].set_ylabel(f"worst ALG/OPT found ({problem})")
    return fig


def plot_eps_sweep(points, problem: str, path: str | os.PathLike, colours: dict | None = None) -> None:
    save_figure(eps_sweep_figure(points, problem, colours), path)
