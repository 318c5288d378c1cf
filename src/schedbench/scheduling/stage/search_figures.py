"""The worst-case search's figures: the worst ALG/OPT found against m, per algorithm; and the ε
sweep (``search.eps_sweep``): the worst ratio found against 1/ε (or m), one figure per problem,
a row per series."""

from __future__ import annotations

import os

import matplotlib

from schedbench.hall.latex import eps_text

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from schedbench.hall.figure_style import (  # noqa: E402
    PANEL_HEIGHT,
    PANEL_WIDTH,
    apply_style,
    colour_map,
    save_figure,
    split_lines,
)

__all__ = ["worst_case_figure", "plot_worst_cases", "eps_sweep_figure", "plot_eps_sweep"]

#: The models of an ε-sweep panel, in legend order (with how each is named).
SWEEP_PANELS = (("rejection", "rejection model (reject ≤ ε)"), ("speed", "speed 1 + ε"))


def worst_case_figure(table) -> plt.Figure:
    """Worst ratio found vs m, a panel per problem (split further past
    :data:`~schedbench.hall.figure_style.MAX_LINES_PER_PANEL` lines), one line per (algorithm, ε)
    in the algorithm's colour of every figure (a second ε of the same algorithm dashed); a filled
    marker is a proved worst case (CP-SAT, no worse instance in the searched space), a hollow one
    a best-found instance (black-box, or CP-SAT stopped by its limit); dotted: the proven upper
    bound where there is one. Rejection-fraction hunts are in the table only."""
    from schedbench.scheduling.stage.figures import algorithm_colours

    data = table[table["objective_kind"] == "ratio"] if not table.empty else table
    apply_style()
    if data.empty:
        fig, ax = plt.subplots(figsize=(6.5, 4.2))
        ax.axis("off")
        ax.text(0.5, 0.5, "no ratio search tasks in this config", ha="center", va="center")
        return fig
    data = data.assign(line=[a + ("" if e != e else f", ε={e:g}") for a, e in zip(data["algorithm"], data["eps"])])
    panels = [  # (title, lines)
        panel
        for problem in sorted(data["problem"].unique())
        for panel in split_lines(problem, sorted(data.loc[data["problem"] == problem, "line"].unique()))
    ]
    colours = algorithm_colours(data["algorithm"].unique())
    fig, axes = plt.subplots(
        1, len(panels), figsize=(PANEL_WIDTH * len(panels), PANEL_HEIGHT + 0.6), squeeze=False, layout="constrained"
    )
    for ax, (title, lines) in zip(axes[0], panels):
        seen: dict[str, int] = {}
        for line in lines:
            sel = data[(data["line"] == line) & (data["problem"] == title.split(" (")[0])]
            rows = sel.groupby("m", as_index=False).agg(
                ratio=("ratio", "max"), proved=("proved", "all"), bound=("ratio_bound", "max")
            )
            algorithm = str(sel["algorithm"].iloc[0])
            c = colours[algorithm]
            style = "-" if seen.get(algorithm, 0) == 0 else "--"
            seen[algorithm] = seen.get(algorithm, 0) + 1
            ax.plot(rows["m"], rows["ratio"], color=c, lw=1.0, ls=style, label=line)
            for proved, marker_face in ((True, c), (False, "white")):
                pts = rows[rows["proved"] == proved]
                ax.scatter(pts["m"], pts["ratio"], color=c, facecolors=marker_face, edgecolors=c, zorder=3, s=28)
            if rows["bound"].notna().any():
                ax.plot(rows["m"], rows["bound"], color=c, lw=0.8, ls=":")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("machines m")
        ax.set_title(title)
        ax.legend(fontsize="x-small", loc="upper left")
        ax.set_ylabel("worst ALG / OPT found")  # every panel: each has its own scale
    return fig


def plot_worst_cases(table, path: str | os.PathLike) -> None:
    save_figure(worst_case_figure(table), path)


def _series_title(g) -> str:
    """A series in words, from its points: its machines and the ε it sweeps (an ε series), or its
    ε and the machines it sweeps (an m series)."""
    r = g.iloc[0]
    if r["sweep"] == "m":
        ms = sorted(g["m"].unique())
        return f"ε = {eps_text(r['eps'])}, m from {int(ms[0])} to {int(ms[-1])}"
    eps = sorted(g["eps"].unique())
    span = f"ε from {eps_text(eps[-1])} to {eps_text(eps[0])}"
    ms = sorted(g["m"].dropna().unique())
    return f"m = {int(ms[0])}, {span}" if len(ms) == 1 else f"m = 1/ε, {span}"


def eps_sweep_figure(points, problem: str, colours: dict | None = None) -> plt.Figure:
    """Worst ALG/OPT found on log–log axes for one problem: a panel per series of the sweep
    (against 1/ε in an ε series, against m in an m series; split past
    :data:`~schedbench.hall.figure_style.MAX_LINES_PER_PANEL` lines), two panels a row at the
    text width; per algorithm a line with circles for the worst found (solid: the rejection
    model at ε, dashed: speed 1+ε), crosses for the best the hand-made adversaries force at that
    point, and a dotted line for the proven bound at the instance's OPT where the algorithm has
    one (clipped above the panel when it is far above the finds; its exponent is in the table).
    ``colours``: algorithm → colour, the same in every figure."""
    from schedbench.hall.figure_style import TEXT_WIDTH
    from schedbench.scheduling.stage.eps_sweep_report import series_order
    from schedbench.scheduling.stage.figures import MODEL_DASHES

    apply_style()
    data = points[points["problem"] == problem]
    panels = []  # (series points, title, algorithms), in reading order
    for series in series_order(data) if len(data) else []:
        g = data[data["series"] == series]
        order = [(m, a) for m, _ in SWEEP_PANELS for a in sorted(g.loc[g["model"] == m, "algorithm"].unique())]
        for title, names in split_lines(_series_title(g), [a for _, a in order]):
            panels.append((g, title, names))
    if not panels:
        fig, ax = plt.subplots(figsize=(PANEL_WIDTH, PANEL_HEIGHT))
        ax.axis("off")
        ax.text(0.5, 0.5, f"no ε sweep for {problem} in this config", ha="center", va="center")
        return fig
    colours = colours or colour_map(data["algorithm"])
    ncols = min(2, len(panels))
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(TEXT_WIDTH, 2.9 * nrows), squeeze=False, layout="constrained")
    for ax in axes.flat[len(panels) :]:
        ax.axis("off")
    for ax, (g, title, names) in zip(axes.flat, panels):
        col = "m" if g["sweep"].iloc[0] == "m" else "inv_eps"
        sel = g[g["algorithm"].isin(names)]
        top = max(1.0, float(sel["ratio"].max()), float(sel["adversary_best"].max(skipna=True) or 1.0))
        for algorithm in names:
            a = sel[sel["algorithm"] == algorithm].sort_values(col)
            c, model = colours[algorithm], a["model"].iloc[0]
            label = algorithm + (" (rejects ε)" if model == "rejection" else " (speed 1+ε)")
            bound = a["ratio_bound"]
            if bound.notna().any() and float(bound.max()) > top * 4:
                label += f", bound ≥ {float(bound.min()):.3g}"
            ax.plot(a[col], a["ratio"], color=c, lw=1.2, marker="o", ms=3.5, dashes=MODEL_DASHES[model], label=label)
            ax.scatter(a[col], a["adversary_best"], color=c, marker="x", s=22, zorder=3)
            if bound.notna().any():
                ax.plot(a[col], bound, color=c, lw=0.9, ls=":")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_ylim(0.9, top * 4)
        ax.set_xlabel("machines m" if col == "m" else "1/ε")
        ax.set_ylabel("worst ALG/OPT found")
        ax.set_title(title)
        ax.legend(fontsize="small", loc="upper left")
    return fig


def plot_eps_sweep(points, problem: str, path: str | os.PathLike, colours: dict | None = None) -> None:
    save_figure(eps_sweep_figure(points, problem, colours), path)
