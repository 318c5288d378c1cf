"""The worst-case search's figure: the worst ALG/OPT found against m, per algorithm."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from schedbench.hall.figure_style import save_figure  # noqa: E402

__all__ = ["worst_case_figure", "plot_worst_cases"]


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
