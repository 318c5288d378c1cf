"""Seed-000 figures from the tidy results table: ALG/OPT vs ε (with the proven bound curves),
the largest prefix rejected fraction vs ε (with y = ε), and ALG/OPT vs the number of rounds of
an adversary (Thm 8.2's growth)."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from schedbench.scheduling.stage.appendix import page_count, paged_figures, pages  # noqa: E402
from schedbench.scheduling.stage.metrics import add_labels, broadcast_over_eps, successful  # noqa: E402
from schedbench.hall.figure_style import BOUND_FLAG, few_note, save_figure  # noqa: E402
from schedbench.hall.stats import MIN_SUMMARY_N  # noqa: E402
from schedbench.hall.figure_style import (  # noqa: E402
    PANEL_HEIGHT,
    PANEL_WIDTH,
    apply_style,
    colour_map,
    palette,
    save_pages,
    split_lines,
)

__all__ = [
    "algorithm_colours",
    "label_colours",
    "ratio_vs_eps_figures",
    "plot_vs_eps",
    "VS_EPS_FIGURES",
    "rejection_vs_eps_figures",
    "rounds_figure",
    "plot_rounds",
    "sweep_figure",
    "plot_sweep",
    "ecdf_figures",
    "plot_ecdf",
    "ECDF_XLABEL",
    "ECDF_YLABEL",
]


class _Placeholder:
    """What the plot functions return when the config gives the figure no rows: one panel that
    says so (a valid config always produces every figure)."""

    def __init__(self, message: str) -> None:
        self.figure, ax = plt.subplots(figsize=(6, 2))
        ax.axis("off")
        ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True)
        self.legend = None
        self.axes = [ax]


#: Line style per model: rejection solid, speed 1+ε dashed, plain and speed-1 references dotted.
MODEL_DASHES = {"rejection": "", "speed": (4, 2), "plain": (1, 1.5), "reference": (1, 1.5)}
#: How far above the measured ratios an ALG/OPT panel reaches for the proven bounds (a factor; a
#: bound higher up is cut and the panel says so: gwmft's O(1/ε⁶) would squash the ratios flat)
BOUND_HEADROOM = 8.0
#: Suffix of the label of a speed-model algorithm's ε = 0 row (drawn flat, like a plain one).
SPEED_ONE = " @ speed 1"


def speed_one_as_reference(data):
    """A speed-model row at ε = 0 is the algorithm at speed 1: relabelled ``<label> @ speed 1``,
    model ``reference`` and ε unset, so it draws as a flat dotted line (ε = 0 has no place on a
    log axis)."""
    ref = (data["model"] == "speed") & (data["eps"] == 0)
    if not ref.any():
        return data
    data = data.copy()
    data.loc[ref, "label"] = data.loc[ref, "label"] + SPEED_ONE
    data.loc[ref, "model"] = "reference"
    data.loc[ref, "eps"] = float("nan")
    return data


def algorithm_colours(extra=()) -> dict[str, tuple]:
    """One colour per algorithm, the same in every figure: the registry's algorithms (and
    ``extra`` names, e.g. a plug-in's) in sorted order along the palette."""
    from schedbench.scheduling.registry import algorithm_names

    names = sorted(set(algorithm_names()) | set(extra))
    return dict(zip(names, palette(len(names))))


def label_colours(data) -> dict[str, tuple]:
    """One colour per *algorithm*, the same in every figure (:func:`algorithm_colours`), shared by
    its parameter variants and its speed-1 row, which differ in marker and line style."""
    colour = algorithm_colours(data["algorithm"].unique())
    return {lab: colour[alg] for lab, alg in data.groupby("label")["algorithm"].first().items()}


def _without_swept_adversaries(df):
    """Rows of experiments whose adversary parameters take one value each (a swept one, such as
    LB-B's rounds K, is drawn against that parameter by :func:`rounds_figure` instead)."""
    gcols = [c for c in df.columns if c.startswith("g_")]
    if not gcols:
        return df
    swept = df.groupby("experiment")[gcols].nunique(dropna=True).gt(1).any(axis=1)
    return df[~df["experiment"].isin(swept[swept].index)]


def _of_problem(df, problem: str | None):
    return df if problem is None else df[df["problem"] == problem]


def _eps_lines(data):
    """``line`` and ``line_model`` of the rows drawn against ε: the label, and the model
    (``reference`` for a speed-model algorithm at speed 1)."""
    return data.assign(line=data["label"].astype(object), line_model=data["model"].astype(object))


def ratio_title(title: str, rows: pd.DataFrame) -> str:
    """``title``, flagged with :data:`BOUND_FLAG` when some OPT of ``rows`` is only a bound."""
    unproven = "opt_status" in rows and bool((rows["opt_status"] != "optimal").any())
    return title + BOUND_FLAG if unproven else title


def fewest_instances(rows, by: list[str], y: str | list[str] = "ratio") -> int:
    """The fewest instances at a point ``by`` of ``rows`` whose ``y`` (each of them) is finite: a
    run the validator passed whose ratio is undefined (a bound of 0) is drawn by no one, so it
    does not count towards :data:`MIN_SUMMARY_N`; 0 for no rows."""
    if rows.empty:
        return 0
    ys = [y] if isinstance(y, str) else list(y)
    drawn = np.isfinite(rows[ys].to_numpy(dtype=float)).all(axis=1)
    counted = rows.assign(_drawn=rows["instance"].where(drawn))
    return int(counted.groupby(by, dropna=False)["_drawn"].nunique().min())


def drawn_units(rows, line: str, point: str) -> pd.Series:
    """What joins a line's values across its points where each value is drawn (no mean): the
    instance where the line meets an instance at several points (a family's instances, run at
    every ε), else the order of the values within a point (an adversary realises a new instance
    at each point: its k-th replication at one point is joined to its k-th at the next)."""
    if rows.empty:
        return rows["instance"]
    spread = rows.groupby([line, "instance"], dropna=False)[point].nunique(dropna=False)
    recurs = rows[line].map(spread.groupby(level=0).max() > 1).fillna(False).to_numpy(dtype=bool)  # per line
    order = rows.sort_values("instance", kind="stable")
    rank = order.groupby([line, point], dropna=False).cumcount().reindex(rows.index)
    return pd.Series(np.where(recurs, rows["instance"].astype(str), "#" + rank.astype(str)), index=rows.index)


def _summary(rows, line: str, point: str, n_boot: int, seed: int, y: str | list[str] = "ratio"):
    """Seaborn's summary arguments for lines ``line`` of ``y`` over the points ``point``, the
    fewest instances at a point (:func:`fewest_instances`) and ``rows`` with their drawn unit
    (``_unit``, :func:`drawn_units`): a mean with its 95 % bootstrap CI, or, with fewer than
    :data:`MIN_SUMMARY_N` at some point, each value on its own (no mean, no band)."""
    fewest = fewest_instances(rows, [line, point], y)
    if fewest < MIN_SUMMARY_N:  # the units only matter where each value is drawn
        return {"units": "_unit", "estimator": None}, fewest, rows.assign(_unit=drawn_units(rows, line, point))
    return {"errorbar": ("ci", 95), "n_boot": n_boot, "seed": seed}, fewest, rows


def _eps_panel(y: str, n_boot: int, seed: int, log_y: bool):
    """The drawing of one paged panel against ε (see :func:`~schedbench.scheduling.stage.appendix.paged_figures`)."""

    def draw(ax, rows, styles, title):
        lines = sorted(rows["line"].unique())
        summary, fewest, rows = _summary(rows, "line", "eps", n_boot, seed, y)
        sns.lineplot(
            data=rows,
            x="eps",
            y=y,
            hue="line",
            hue_order=lines,
            style="line",
            style_order=lines,
            palette={line: styles[line]["color"] for line in lines},
            markers={line: styles[line]["marker"] for line in lines},
            dashes={line: styles[line]["dashes"] for line in lines},
            ax=ax,
            legend=False,
            **summary,
        )
        if fewest < MIN_SUMMARY_N:
            title += few_note(fewest)
        ax.set_xscale("log", base=2)
        if log_y:
            ax.set_yscale("log", base=2)  # bounds (up to 2β) and ratios near 1 in one panel
        models = set(rows["line_model"])  # one class per panel
        ax.set_xlabel(
            "ε (rejected fraction)"
            if "rejection" in models
            else "ε (speed 1+ε)"
            if "speed" in models
            else "ε (not used: flat)"
        )
        ax.set_title(ratio_title(title, rows) if y == "ratio" else title)

    return draw


def _colours(data) -> dict[str, tuple]:
    return algorithm_colours(data["algorithm"].unique()) if len(data) else {}


def _experiments(data, experiments: list[str] | None) -> list[str]:
    return sorted(data["experiment"].unique()) if experiments is None else list(experiments)


def ratio_vs_eps_figures(
    df, n_boot: int = 1000, seed: int = 0, problem: str | None = None, experiments: list[str] | None = None
) -> list[plt.Figure]:
    """ALG/OPT vs ε for ``problem`` (all if None), paged: a row of panels per experiment of
    ``experiments`` (default: those in ``df`` but adversaries with a swept parameter, which
    :func:`rounds_figure` draws), a column per class of lines
    (:mod:`~schedbench.scheduling.stage.appendix`), at most six lines a panel.

    Mean ratio with 95 % bootstrap CI bands, log₂ axes. Only validated runs (status ``ok``) are
    drawn. A speed-model algorithm at ε = 0 is the algorithm at speed 1 (``@ speed 1``, with the
    plain algorithms, drawn flat). Where an algorithm has a proven bound on ALG/OPT (column
    ``ratio_bound``), it is drawn dash-dot in the algorithm's colour.
    """

    rows = successful(_of_problem(df, problem))
    if experiments is None:
        rows = _without_swept_adversaries(rows)
    else:
        rows = rows[rows["experiment"].isin(experiments)]
    data = speed_one_as_reference(add_labels(rows))
    if data["eps"].dropna().empty and not data.empty:  # only plain algorithms: a point per algorithm
        return [
            _no_eps_figure(data[data["experiment"].isin(page)], n_boot, seed)
            for page in pages(_experiments(data, experiments))
        ]
    data = _eps_lines(broadcast_over_eps(data))
    draw_ratio = _eps_panel("ratio", n_boot, seed, log_y=True)

    def draw(ax, rows, styles, title):
        draw_ratio(ax, rows, styles, title)
        bottom, top = ax.get_ylim()  # the measured ratios' range, before the bounds
        bounds = rows.dropna(subset=["ratio_bound"]) if "ratio_bound" in rows.columns else rows.iloc[:0]
        for line, brows in bounds.groupby("line", sort=True):
            curve = brows.groupby("eps")["ratio_bound"].first().sort_index()
            ax.plot(curve.index, curve.to_numpy(), ls="-.", lw=0.8, color=styles[line]["color"])
        highest = float(bounds["ratio_bound"].max()) if len(bounds) else 0.0
        if highest > BOUND_HEADROOM * top:  # the ratios stay readable: the bounds are cut
            ax.set_ylim(bottom, BOUND_HEADROOM * top)
            ax.text(
                0.02, 0.98, f"bounds up to {highest:.3g}, cut", transform=ax.transAxes, va="top", fontsize="x-small"
            )
        ax.set_ylabel("ALG / OPT (dash-dot: bound)")

    return paged_figures(data, _experiments(data, experiments), draw, colours=_colours(data))


def _no_eps_figure(data, n_boot: int, seed: int) -> plt.Figure:
    """Only ε-free (plain) algorithms in the config: ALG/OPT per algorithm, one panel per
    experiment: a mean with its 95 % CI, or each instance's ratio where a setting of the panel has
    fewer than :data:`MIN_SUMMARY_N` instances (the panel's title says so)."""
    if data.empty:
        return _Placeholder("no validated runs in this config").figure
    data = data.astype({"label": object, "experiment": object})
    apply_style()
    experiments = sorted(data["experiment"].unique())
    fig, axes = plt.subplots(1, len(experiments), figsize=(3.6 * len(experiments), 3.0), squeeze=False)
    for ax, exp in zip(axes[0], experiments):
        rows = data[data["experiment"] == exp]
        order = sorted(rows["label"].unique())
        fewest = fewest_instances(rows, ["label"])
        if fewest < MIN_SUMMARY_N:  # each instance a dot: no mean, no interval
            sns.stripplot(data=rows, x="label", y="ratio", order=order, ax=ax)
        else:
            sns.pointplot(
                data=rows, x="label", y="ratio", order=order, errorbar=("ci", 95), n_boot=n_boot, seed=seed, ax=ax
            )
        ax.set_title(ratio_title(exp + (few_note(fewest) if fewest < MIN_SUMMARY_N else ""), rows))
        ax.set_xlabel("algorithm (no ε in this config)")
        ax.set_ylabel("ALG / OPT")
    return fig


def rejection_vs_eps_figures(
    df, n_boot: int = 1000, seed: int = 0, problem: str | None = None, experiments: list[str] | None = None
) -> list[plt.Figure]:
    """The largest prefix rejected fraction vs ε for the rejection-model rows of ``problem``
    (all if None), paged like :func:`ratio_vs_eps_figures`, with y = ε (the budget) dotted black;
    every run is drawn, including those over budget."""

    df = _of_problem(df, problem)
    data = add_labels(df[(df["model"] == "rejection") & df["status"].isin(["ok", "budget_violated"])])
    if experiments is not None:
        data = data[data["experiment"].isin(experiments)]
    data = _eps_lines(data)
    draw_fraction = _eps_panel("rejected_frac_max_prefix", n_boot, seed, log_y=False)

    def draw(ax, rows, styles, title):
        draw_fraction(ax, rows, styles, title)
        eps = sorted(rows["eps"].unique())
        ax.plot(eps, eps, color="black", lw=1.0, ls=":")
        ax.set_ylabel("max prefix rejected fraction")

    return paged_figures(
        data, _experiments(data, experiments), draw, colours=_colours(data), empty="no rejection-model runs"
    )


def _swept_parameter(rows, parameters: list[str]) -> str | None:
    """The first of ``parameters`` that takes more than one value in an experiment's rows."""
    for name in parameters:
        col = f"g_{name}"
        if col in rows.columns and rows[col].nunique(dropna=True) > 1:
            return name
    return None


def _rounds_lines(rows, col: str, eps: float):
    """An adversary experiment's rows at one ε (the one closest to ``eps``; plain algorithms and a
    speed-model algorithm's speed-1 row too), each with its line: the setting and its ε."""
    grid = rows.loc[rows["eps"].fillna(0) > 0, "eps"].unique()
    chosen = grid[abs(grid - eps).argmin()] if grid.size else None
    rows = rows[rows["eps"].isna() | (rows["eps"] == chosen) | ((rows["model"] == "speed") & (rows["eps"] == 0))]
    rows = rows.assign(
        line=[
            lab + (SPEED_ONE if (mod == "speed" and e == 0) else (f", ε={e:g}" if e == e else ""))
            for lab, e, mod in zip(rows["label"], rows["eps"], rows["model"])
        ]
    )
    return rows.astype({"line": object, col: float})


def rounds_figure(df, parameter: str | list[str], n_boot: int = 1000, seed: int = 0, eps: float = 0.25) -> plt.Figure:
    """ALG/OPT against a swept adversary parameter (column ``g_<parameter>``: the rounds K of
    LB-B, the machines m of the immediate-dispatch tree), one panel per adversary experiment
    that sweeps one of ``parameter`` (a name or a list, first match per experiment; split into
    panels of at most :data:`MAX_LINES_PER_PANEL` lines), one line per algorithm at one ε: the
    one closest to ``eps`` (plain algorithms have none; a speed-model algorithm's speed-1 row is
    drawn too)."""
    parameters = [parameter] if isinstance(parameter, str) else list(parameter)
    data = successful(df)
    panels = []  # (experiment, swept parameter, its rows, panel title, the panel's lines)
    for exp, rows in data.groupby("experiment", sort=True):
        name = _swept_parameter(rows, parameters)
        if name is not None:
            rows = _rounds_lines(add_labels(rows), f"g_{name}", eps)
            panels += [(exp, name, rows, t, lines) for t, lines in split_lines(exp, sorted(rows["line"].unique()))]
    if not panels:
        return _Placeholder(
            f"no adversary experiment sweeps {' or '.join(map(repr, parameters))} in this "
            "config (or none has a validated run)"
        ).figure
    apply_style()
    ncols = min(2, len(panels))  # two panels fill the text width at print size
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(PANEL_WIDTH * ncols, (PANEL_HEIGHT + 1.0) * nrows), squeeze=False, layout="constrained"
    )
    for ax in axes.flat[len(panels) :]:
        ax.axis("off")
    for (exp, name, all_rows, title, order), ax in zip(panels, axes.flat):
        col = f"g_{name}"
        colour = label_colours(all_rows)  # one colour per setting across the experiment's panels
        rows = all_rows[all_rows["line"].isin(order)]
        line_colour = {line: colour[lab] for line, lab in zip(rows["line"], rows["label"])}
        line_dash = {
            line: MODEL_DASHES["reference" if line.endswith(SPEED_ONE) else mod]
            for line, mod in zip(rows["line"], rows["model"])
        }
        summary, fewest, rows = _summary(rows, "line", col, n_boot, seed)
        sns.lineplot(
            data=rows,
            x=col,
            y="ratio",
            hue="line",
            hue_order=order,
            style="line",
            style_order=order,
            dashes=line_dash,
            markers=True,
            ax=ax,
            palette=line_colour,
            **summary,
        )
        if name == "m":
            ax.set_xscale("log", base=2)
        ax.set_title(ratio_title(title + (few_note(fewest) if fewest < MIN_SUMMARY_N else ""), rows))
        ax.set_xlabel(
            f"adversary parameter {name}" + (" (rounds)" if name == "K" else " (machines)" if name == "m" else "")
        )
        ax.set_ylabel("ALG / OPT")
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=1, frameon=False)
    return fig


def _checked_pages(figs: list, experiments: list[str] | None) -> list:
    """``figs``, when they are as many as the pages the paper includes for ``experiments``."""
    if experiments is not None and len(figs) != page_count(len(experiments)):
        raise RuntimeError(
            f"a paged figure of {len(experiments)} experiments drew {len(figs)} pages, "
            f"the paper includes {page_count(len(experiments))}"
        )
    return figs


def _legend_lines(figs) -> list[str]:
    return [t.get_text() for fig in figs for ax in fig.axes if ax.get_legend() for t in ax.get_legend().texts]


def _save_paged(figs, path, experiments) -> list[str]:
    """Check ``figs`` against the paper's page count, write them (a PDF page each); return the
    legend entries, page by page and column by column."""
    lines = _legend_lines(_checked_pages(figs, experiments))
    save_pages(figs, path)
    return lines


#: The paged figures over ε, by what they plot: ALG/OPT or the rejected fraction.
VS_EPS_FIGURES = {"ratio": ratio_vs_eps_figures, "rejection": rejection_vs_eps_figures}


def plot_vs_eps(
    df,
    path: str | os.PathLike,
    what: str,
    n_boot: int = 1000,
    seed: int = 0,
    problem: str | None = None,
    experiments: list[str] | None = None,
) -> list[str]:
    """Write the paged ALG/OPT (``what="ratio"``) or rejected-fraction (``"rejection"``) figure of
    ``problem``'s experiments to ``path`` atomically, a PDF page per page; return the legend
    entries."""
    if what not in VS_EPS_FIGURES:
        raise ValueError(f"what: {what!r} is not one of {sorted(VS_EPS_FIGURES)}")
    figs = VS_EPS_FIGURES[what](df, n_boot=n_boot, seed=seed, problem=problem, experiments=experiments)
    return _save_paged(figs, path, experiments)


def plot_rounds(df, parameter: str | list[str], path: str | os.PathLike, n_boot: int = 1000, seed: int = 0) -> None:
    save_figure(rounds_figure(df, parameter, n_boot=n_boot, seed=seed), path)


def sweep_figure(df, parameters: list[str], n_boot: int = 1000, seed: int = 0) -> plt.Figure:
    """For every (experiment, algorithm) where one of ``parameters`` (an algorithm parameter,
    column ``p_<name>``: e.g. the timeout constant of the weighted rejection algorithms) takes
    more than one value: ALG/OPT, the rejected fraction (by the problem's budget weight) and the
    wasted work (work spent on jobs rejected later, over the total size) against it, one line
    per ε (at most :data:`MAX_LINES_PER_PANEL` a column: more ε split over columns); one column
    of panels each, its legend on top, an ε the same colour in every column. Validated runs
    only."""
    data = successful(df)
    panels = []  # (experiment, algorithm, parameter, column title, the column's ε)
    for (exp, alg), rows in data.groupby(["experiment", "algorithm"], sort=True):
        for name in parameters:
            col = f"p_{name}"
            if col in rows.columns and rows[col].nunique(dropna=True) > 1:
                eps = [f"{e:g}" for e in sorted(rows["eps"].unique())]
                panels += [(exp, alg, name, title, chunk) for title, chunk in split_lines(exp, eps)]
                break
    if not panels:
        return _Placeholder(f"no experiment sweeps {' or '.join(map(repr, parameters))} in this config").figure
    apply_style()
    colour = colour_map({e for *_, chunk in panels for e in chunk}, key=float)
    fig, axes = plt.subplots(3, len(panels), figsize=(4.2 * len(panels), 8.0), squeeze=False, sharex="col")
    metrics = (
        ("ratio", "ALG / OPT"),
        ("rejected_frac", "rejected fraction (budget weight)"),
        ("wasted_work_frac", "wasted work / total size"),
    )
    for k, (exp, alg, name, title, chunk) in enumerate(panels):
        col = f"p_{name}"
        rows = data[(data["experiment"] == exp) & (data["algorithm"] == alg)].copy()
        order = [v for v in dict.fromkeys(rows[col].tolist())]  # the config's order
        rows["x"] = rows[col].map({v: i for i, v in enumerate(order)})
        rows["ε"] = rows["eps"].map(lambda e: f"{e:g}")
        rows = rows[rows["ε"].isin(chunk)]
        summary, fewest, rows = _summary(rows, "ε", "x", n_boot, seed, [y for y, _ in metrics])
        for r, (y, label) in enumerate(metrics):
            ax = axes[r, k]
            sns.lineplot(
                data=rows,
                x="x",
                y=y,
                hue="ε",
                marker="o",
                **summary,
                ax=ax,
                palette=colour,
                hue_order=chunk,
            )
            ax.set_xticks(range(len(order)), [str(v) for v in order])
            ax.set_ylabel(label)
            ax.set_xlabel(f"{alg}: {name}")
            if r == 0:  # the ALG/OPT row, with the column's legend
                ax.set_title(ratio_title(title + (few_note(fewest) if fewest < MIN_SUMMARY_N else ""), rows))
            elif ax.get_legend() is not None:
                ax.get_legend().remove()
    return fig


def plot_sweep(df, parameters: list[str], path: str | os.PathLike, n_boot: int = 1000, seed: int = 0) -> None:
    save_figure(sweep_figure(df, parameters, n_boot=n_boot, seed=seed), path)


#: axis labels of the performance profiles (tested)
ECDF_XLABEL = "τ = ALG / OPT"
ECDF_YLABEL = "instances with ALG/OPT ≤ τ"


def _at_one_eps(rows, eps: float):
    """The rows of one ε per experiment, the one closest to ``eps`` (plain algorithms have none,
    a speed-model algorithm's speed-1 row is kept), each with its line label."""
    grid = rows.loc[rows["eps"].fillna(0) > 0, "eps"].unique()
    chosen = grid[abs(grid - eps).argmin()] if grid.size else None
    rows = rows[rows["eps"].isna() | (rows["eps"] == chosen) | ((rows["model"] == "speed") & (rows["eps"] == 0))]
    line = [
        lab + (SPEED_ONE if (mod == "speed" and e == 0) else "")
        for lab, e, mod in zip(rows["label"], rows["eps"], rows["model"])
    ]
    model = ["reference" if (mod == "speed" and e == 0) else mod for e, mod in zip(rows["eps"], rows["model"])]
    return rows.assign(line=line, line_model=model).astype({"line": object}), chosen


def ecdf_figures(
    df, problem: str | None = None, eps: float = 0.25, experiments: list[str] | None = None
) -> list[plt.Figure]:
    """Performance profiles: the ECDF of ALG/OPT over the instances of each family experiment of
    ``problem`` (all if None; adversary experiments have no instance set and are left out; or
    exactly ``experiments``), paged like :func:`ratio_vs_eps_figures`, one line per algorithm and
    parameter setting at one ε (the one closest to ``eps``, in the panel's title; plain algorithms
    have none; a speed-model algorithm at speed 1 is drawn with no augmentation). A line that
    reaches 1 at τ has ALG/OPT ≤ τ on every instance. Validated runs only."""

    data = successful(_of_problem(df, problem))
    if "claimed_opt" in data.columns:
        data = data[data["claimed_opt"].isna()]
    if experiments is not None:
        data = data[data["experiment"].isin(experiments)]
    if data.empty:
        message = "no validated runs on instance families for this problem in this config"
        return [_Placeholder(message).figure for _ in pages(_experiments(data, experiments))]
    data = add_labels(data)
    parts, at_eps = [], {}
    for exp, rows in data.groupby("experiment", sort=True):
        rows, chosen = _at_one_eps(rows, eps)
        parts.append(rows)
        at_eps[exp] = f", ε = {chosen:g}" if chosen is not None else ""
    data = pd.concat(parts, ignore_index=True)

    def draw(ax, rows, styles, title):
        lines = sorted(rows["line"].unique())
        n = fewest_instances(rows, ["line"])  # the line with the fewest instances decides
        few = f" < {MIN_SUMMARY_N}: each instance, no ECDF" if n < MIN_SUMMARY_N else ""
        for k, line in enumerate(lines):
            ratios = rows.loc[rows["line"] == line, "ratio"].to_numpy(dtype=float)
            ratios = ratios[np.isfinite(ratios)]
            dash = styles[line]["dashes"]
            if n < MIN_SUMMARY_N:  # too few for an ECDF: each instance's ratio, one row per line
                ax.plot(
                    ratios,
                    [k] * len(ratios),
                    ls="none",
                    marker=styles[line]["marker"] or "o",
                    color=styles[line]["color"],
                )
            else:
                sns.ecdfplot(x=ratios, ax=ax, color=styles[line]["color"], lw=1.2, linestyle=(0, dash) if dash else "-")
        drawn = rows["ratio"].to_numpy(dtype=float)
        drawn = drawn[np.isfinite(drawn)]
        ax.set_xlim(left=min(1.0, float(drawn.min()) if drawn.size else 1.0) - 0.02)
        ax.set_xlabel(ECDF_XLABEL)
        if n < MIN_SUMMARY_N:
            ax.set_yticks(range(len(lines)), [""] * len(lines))
            ax.set_ylim(-0.5, len(lines) - 0.5)
            ax.set_ylabel("setting (legend order)")
        else:
            ax.set_ylabel(ECDF_YLABEL)
        ax.set_title(ratio_title(f"{title} (n = {n}{few}{at_eps[rows['experiment'].iloc[0]]})", rows))

    return paged_figures(
        data,
        _experiments(data, experiments),
        draw,
        colours=_colours(data),
        empty="no validated runs on instance families",
        markers=False,
    )


def plot_ecdf(
    df, path: str | os.PathLike, problem: str | None = None, eps: float = 0.25, experiments: list[str] | None = None
) -> None:
    _save_paged(ecdf_figures(df, problem=problem, eps=eps, experiments=experiments), path, experiments)
