"""Seed-000 figures from the tidy results table: ALG/OPT vs ε (with the proven bound curves),
the largest prefix rejected fraction vs ε (with y = ε), and ALG/OPT vs the number of rounds of
an adversary (Thm 8.2's growth)."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from schedbench.scheduling.stage.metrics import add_labels, broadcast_over_eps, eps_axis_label, successful  # noqa: E402
from schedbench.hall.figure_style import save_figure  # noqa: E402
from schedbench.hall.figure_style import (  # noqa: E402
    ECDF_DASHES,
    PANEL_HEIGHT,
    PANEL_WIDTH,
    apply_style,
    colour_map,
    palette,
)

__all__ = [
    "algorithm_colours",
    "label_colours",
    "ratio_vs_eps_grid",
    "plot_ratio_vs_eps",
    "rejection_vs_eps_grid",
    "plot_rejection_vs_eps",
    "rounds_figure",
    "plot_rounds",
    "sweep_figure",
    "plot_sweep",
    "ecdf_figure",
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


def _grid(data, y: str, n_boot: int, seed: int) -> tuple[sns.FacetGrid, list[str], list[str]]:
    data = data.astype({"label": object, "experiment": object})
    hue_order = sorted(data["label"].unique())
    experiments = sorted(data["experiment"].unique())
    model_of = data.groupby("label")["model"].first()
    apply_style()
    grid = sns.relplot(
        data=data,
        x="eps",
        y=y,
        hue="label",
        hue_order=hue_order,
        style="label",
        style_order=hue_order,
        col="experiment",
        col_order=experiments,
        kind="line",
        markers=True,
        dashes={lab: MODEL_DASHES.get(model_of[lab], "") for lab in hue_order},
        errorbar=("ci", 95),
        n_boot=n_boot,
        seed=seed,
        facet_kws={"sharey": False},
        height=3.0,
        aspect=1.2,
        col_wrap=min(3, len(experiments)),
        palette=label_colours(data),
    )
    for exp, ax in zip(experiments, grid.axes.flat):
        ax.set_xscale("log", base=2)
        ax.set_title(exp)
        ax.set_xlabel(eps_axis_label(data.loc[data["experiment"] == exp, "model"]))
    grid.legend.set_title("algorithm")
    return grid, hue_order, experiments


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


def ratio_vs_eps_grid(df, n_boot: int = 1000, seed: int = 0, problem: str | None = None) -> sns.FacetGrid:
    """ALG/OPT vs ε, one panel per experiment of ``problem`` (all if None; left open:
    :func:`plot_ratio_vs_eps` saves).

    Mean ratio with 95 % bootstrap CI bands, log₂ axes, legend sorted by label. Line style
    tells the models apart (:data:`MODEL_DASHES`): rejection-model rows solid (ε = rejected
    fraction), speed-model rows dashed (speed 1+ε), plain algorithms and speed-model rows at
    ε = 0 (labelled "@ speed 1") flat and dotted. Only validated runs (status ``ok``) are
    drawn. Where an algorithm has a proven bound on ALG/OPT (column ``ratio_bound``), it is
    drawn dash-dot in the algorithm's colour. Experiments that sweep an adversary parameter are left to
    :func:`rounds_figure`.
    """
    data = broadcast_over_eps(
        speed_one_as_reference(add_labels(successful(_without_swept_adversaries(_of_problem(df, problem)))))
    )
    if data["eps"].dropna().empty:
        return _no_eps_figure(data, n_boot, seed)
    grid, hue_order, experiments = _grid(data, "ratio", n_boot, seed)
    for ax in grid.axes.flat:
        ax.set_yscale("log", base=2)  # bounds (up to 2β) and ratios near 1 in one panel
    colors = label_colours(data)
    if "ratio_bound" in data.columns:
        bounds = data.dropna(subset=["ratio_bound"])
        for exp, ax in zip(experiments, grid.axes.flat):
            for label, rows in bounds[bounds["experiment"] == exp].groupby("label", sort=True):
                curve = rows.groupby("eps")["ratio_bound"].first().sort_index()
                ax.plot(curve.index, curve.to_numpy(), ls="-.", lw=0.8, color=colors[label])
    grid.set_ylabels("ALG / OPT  (dash-dot: proven bound)")
    return grid


def _no_eps_figure(data, n_boot: int, seed: int):
    """Only ε-free (plain) algorithms in the config: ALG/OPT per algorithm, one panel per experiment."""
    if data.empty:
        return _Placeholder("no validated runs in this config")
    data = data.astype({"label": object, "experiment": object})
    apply_style()
    grid = sns.catplot(
        data=data,
        x="label",
        y="ratio",
        col="experiment",
        kind="point",
        errorbar=("ci", 95),
        n_boot=n_boot,
        seed=seed,
        sharey=False,
        height=3.0,
        aspect=1.2,
        col_order=sorted(data["experiment"].unique()),
        order=sorted(data["label"].unique()),
    )
    grid.set_axis_labels("algorithm (no ε in this config)", "ALG / OPT")
    grid.legend = None
    return grid


def rejection_vs_eps_grid(df, n_boot: int = 1000, seed: int = 0, problem: str | None = None) -> sns.FacetGrid:
    """The largest prefix rejected fraction vs ε for the rejection-model rows of ``problem``
    (all if None), with y = ε (the budget) in black; every run is drawn, including those over
    budget."""
    df = _of_problem(df, problem)
    data = add_labels(df[(df["model"] == "rejection") & df["status"].isin(["ok", "budget_violated"])])
    if data.empty:
        return _Placeholder("no rejection-model runs in this config")
    grid, _, experiments = _grid(data, "rejected_frac_max_prefix", n_boot, seed)
    for exp, ax in zip(experiments, grid.axes.flat):
        eps = sorted(data.loc[data["experiment"] == exp, "eps"].unique())
        ax.plot(eps, eps, color="black", lw=1.0, ls=":", label="budget y = ε")
    grid.set_ylabels("max prefix rejected fraction")
    return grid


def _swept_parameter(rows, parameters: list[str]) -> str | None:
    """The first of ``parameters`` that takes more than one value in an experiment's rows."""
    for name in parameters:
        col = f"g_{name}"
        if col in rows.columns and rows[col].nunique(dropna=True) > 1:
            return name
    return None


def rounds_figure(df, parameter: str | list[str], n_boot: int = 1000, seed: int = 0, eps: float = 0.25) -> plt.Figure:
    """ALG/OPT against a swept adversary parameter (column ``g_<parameter>``: the rounds K of
    LB-B, the machines m of the immediate-dispatch tree), one panel per adversary experiment
    that sweeps one of ``parameter`` (a name or a list, first match per experiment), one line
    per algorithm at one ε: the one closest to ``eps`` (plain algorithms have none; a
    speed-model algorithm's speed-1 row is drawn too)."""
    parameters = [parameter] if isinstance(parameter, str) else list(parameter)
    data = successful(df)
    panels = []
    for exp, rows in data.groupby("experiment", sort=True):
        name = _swept_parameter(rows, parameters)
        if name is not None:
            panels.append((exp, name))
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
    for (exp, name), ax in zip(panels, axes.flat):
        col = f"g_{name}"
        rows = add_labels(data[data["experiment"] == exp])
        grid = rows.loc[rows["eps"].fillna(0) > 0, "eps"].unique()
        chosen = grid[abs(grid - eps).argmin()] if grid.size else None
        rows = rows[rows["eps"].isna() | (rows["eps"] == chosen) | ((rows["model"] == "speed") & (rows["eps"] == 0))]
        rows = rows.assign(
            line=[
                lab + (SPEED_ONE if (mod == "speed" and e == 0) else (f", ε={e:g}" if e == e else ""))
                for lab, e, mod in zip(rows["label"], rows["eps"], rows["model"])
            ]
        )
        rows = rows.astype({"line": object, col: float})
        colour = label_colours(rows)
        line_colour = {line: colour[lab] for line, lab in zip(rows["line"], rows["label"])}
        line_dash = {
            line: MODEL_DASHES["reference" if line.endswith(SPEED_ONE) else mod]
            for line, mod in zip(rows["line"], rows["model"])
        }
        order = sorted(rows["line"].unique())
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
            errorbar=("ci", 95),
            n_boot=n_boot,
            seed=seed,
            ax=ax,
            palette=line_colour,
        )
        if name == "m":
            ax.set_xscale("log", base=2)
        ax.set_title(exp)
        ax.set_xlabel(
            f"adversary parameter {name}" + (" (rounds)" if name == "K" else " (machines)" if name == "m" else "")
        )
        ax.set_ylabel("ALG / OPT")
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=1, frameon=False)
    return fig


def plot_ratio_vs_eps(
    df, path: str | os.PathLike, n_boot: int = 1000, seed: int = 0, problem: str | None = None
) -> list[str]:
    """Write the ratio figure (of ``problem``'s experiments) to ``path`` atomically; return the legend order."""
    grid = ratio_vs_eps_grid(df, n_boot=n_boot, seed=seed, problem=problem)
    hue_order = [t.get_text() for t in grid.legend.texts] if grid.legend is not None else []
    save_figure(grid.figure, path)
    return hue_order


def plot_rejection_vs_eps(
    df, path: str | os.PathLike, n_boot: int = 1000, seed: int = 0, problem: str | None = None
) -> list[str]:
    grid = rejection_vs_eps_grid(df, n_boot=n_boot, seed=seed, problem=problem)
    hue_order = [t.get_text() for t in grid.legend.texts] if grid.legend is not None else []
    save_figure(grid.figure, path)
    return hue_order


def plot_rounds(df, parameter: str | list[str], path: str | os.PathLike, n_boot: int = 1000, seed: int = 0) -> None:
    save_figure(rounds_figure(df, parameter, n_boot=n_boot, seed=seed), path)


def sweep_figure(df, parameters: list[str], n_boot: int = 1000, seed: int = 0) -> plt.Figure:
    """For every (experiment, algorithm) where one of ``parameters`` (an algorithm parameter,
    column ``p_<name>``: e.g. the timeout constant of the weighted rejection algorithms) takes
    more than one value: ALG/OPT, the rejected fraction (by the problem's budget weight) and the
    wasted work (work spent on jobs rejected later, over the total size) against it, one line
    per ε; one column of panels each. Validated runs only."""
    data = successful(df)
    panels = []
    for (exp, alg), rows in data.groupby(["experiment", "algorithm"], sort=True):
        for name in parameters:
            col = f"p_{name}"
            if col in rows.columns and rows[col].nunique(dropna=True) > 1:
                panels.append((exp, alg, name))
                break
    if not panels:
        return _Placeholder(f"no experiment sweeps {' or '.join(map(repr, parameters))} in this config").figure
    apply_style()
    fig, axes = plt.subplots(3, len(panels), figsize=(4.2 * len(panels), 8.0), squeeze=False, sharex="col")
    metrics = (
        ("ratio", "ALG / OPT"),
        ("rejected_frac", "rejected fraction (budget weight)"),
        ("wasted_work_frac", "wasted work / total size"),
    )
    for k, (exp, alg, name) in enumerate(panels):
        col = f"p_{name}"
        rows = data[(data["experiment"] == exp) & (data["algorithm"] == alg)].copy()
        order = [v for v in dict.fromkeys(rows[col].tolist())]  # the config's order
        rows["x"] = rows[col].map({v: i for i, v in enumerate(order)})
        rows["ε"] = rows["eps"].map(lambda e: f"{e:g}")
        for r, (y, label) in enumerate(metrics):
            ax = axes[r, k]
            sns.lineplot(
                data=rows,
                x="x",
                y=y,
                hue="ε",
                marker="o",
                errorbar=("ci", 95),
                n_boot=n_boot,
                seed=seed,
                ax=ax,
                palette=palette(rows["ε"].nunique()),
                hue_order=sorted(rows["ε"].unique(), key=float),
            )
            ax.set_xticks(range(len(order)), [str(v) for v in order])
            ax.set_ylabel(label)
            ax.set_xlabel(f"{alg}: {name}")
            if r == 0:
                ax.set_title(exp)
            if r or k:
                legend = ax.get_legend()
                if legend is not None:
                    legend.remove()
    return fig


def plot_sweep(df, parameters: list[str], path: str | os.PathLike, n_boot: int = 1000, seed: int = 0) -> None:
    save_figure(sweep_figure(df, parameters, n_boot=n_boot, seed=seed), path)


#: axis labels of the performance profiles (tested)
ECDF_XLABEL = "τ = ALG / OPT"
ECDF_YLABEL = "fraction of instances with ALG/OPT ≤ τ"


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


def ecdf_figure(df, problem: str | None = None, eps: float = 0.25) -> plt.Figure:
    """Performance profiles: the ECDF of ALG/OPT over the instances of each family experiment of
    ``problem`` (all if None; adversary experiments have no instance set and are left out), one
    panel per experiment, one line per algorithm and parameter setting at one ε (the one closest
    to ``eps``; plain algorithms have none; a speed-model algorithm at speed 1 is drawn dotted).
    A line that reaches 1 at τ has ALG/OPT ≤ τ on every instance. Validated runs only; legend
    sorted by label, one colour per line (parameter variants of an algorithm must differ)."""
    data = successful(_of_problem(df, problem))
    if "claimed_opt" in data.columns:
        data = data[data["claimed_opt"].isna()]
    if data.empty:
        return _Placeholder("no validated runs on instance families for this problem in this config").figure
    data = add_labels(data)
    experiments = sorted(data["experiment"].unique())
    apply_style()
    ncols = min(3, len(experiments))
    nrows = -(-len(experiments) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.4 * nrows), squeeze=False, layout="constrained")
    for ax in axes.flat[len(experiments) :]:
        ax.axis("off")
    for exp, ax in zip(experiments, axes.flat):
        rows, chosen = _at_one_eps(data[data["experiment"] == exp], eps)
        order = sorted(rows["line"].unique())
        line_colour = colour_map(order)  # one colour per line: parameter variants must differ here
        line_dash = dict(zip(rows["line"], rows["line_model"]))
        for line in order:
            ratios = rows.loc[rows["line"] == line, "ratio"].to_numpy(dtype=float)
            dash = ECDF_DASHES.get(line_dash[line], "")
            sns.ecdfplot(
                x=ratios, ax=ax, color=line_colour[line], label=line, lw=1.2, linestyle=(0, dash) if dash else "-"
            )
        ax.set_xlim(left=min(1.0, float(rows["ratio"].min())) - 0.02)
        ax.set_xlabel(ECDF_XLABEL)
        ax.set_ylabel(ECDF_YLABEL)
        n_inst = rows["instance"].nunique()
        ax.set_title(f"{exp} (n = {n_inst}" + (f", ε = {chosen:g})" if chosen is not None else ")"))
        ax.legend(title="algorithm", fontsize="x-small", loc="lower right")
    return fig


def plot_ecdf(df, path: str | os.PathLike, problem: str | None = None, eps: float = 0.25) -> None:
    save_figure(ecdf_figure(df, problem=problem, eps=eps), path)
