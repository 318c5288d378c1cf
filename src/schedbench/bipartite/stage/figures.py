"""Figures B1–B5 of the bipartite model (seed 003; docs/models/bipartite.md §9), one function each. Each reads only
the tidy bipartite table (one row per group × policy) and draws 95 % batch-means CIs."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from schedbench.hall.figure_style import save_figure  # noqa: E402
from schedbench.hall.figure_style import PANEL_WIDTH, apply_style, palette  # noqa: E402

POLICY_ORDER = ["jfsq", "jfiq", "jsq", "jiq", "jsq-d", "random", "random-mu"]


def _colors(policies):
    ordered = [p for p in POLICY_ORDER if p in set(policies)]
    return ordered, dict(zip(ordered, palette(len(ordered))))


def _grid(nrows, ncols, w=PANEL_WIDTH, h=2.7):
    apply_style()
    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols, h * nrows), squeeze=False, layout="constrained")
    return fig, axes


def _errorbars(ax, g, x, y, lo, hi, color, label, marker="o", ls="-"):
    g = g.sort_values(x)
    val = g[y].to_numpy()
    ok = np.isfinite(val)
    ax.errorbar(
        g[x][ok],
        val[ok],
        yerr=[np.maximum(val - g[lo].to_numpy(), 0)[ok], np.maximum(g[hi].to_numpy() - val, 0)[ok]],
        fmt=marker,
        ls=ls,
        lw=0.9,
        ms=3.5,
        capsize=2,
        color=color,
        label=label,
    )


def _excess_bars(ax, g, color, label, marker="o", ls="-"):
    """E[T] − T*_N against N on log axes; a CI reaching below a tenth of the estimate is cut there."""
    g = g.assign(excess_ci_lo=np.maximum(g["excess_ci_lo"], g["excess_over_t_star"] / 10))
    _errorbars(ax, g, "N", "excess_over_t_star", "excess_ci_lo", "excess_ci_hi", color, label, marker, ls)


def _legend(fig, axes, fontsize=6):
    """One legend for the figure, with every label drawn in any panel (first occurrence order)."""
    seen = {}
    for ax in np.ravel(axes):
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    fig.legend(list(seen.values()), list(seen), fontsize=fontsize, loc="outside right upper")


def _panels(df, row_key, col_key):
    rows = sorted(df[row_key].unique()) if row_key else [None]
    cols = sorted(df[col_key].unique()) if col_key else [None]
    return rows, cols


def _policy_panels(df, path, title, ylabel, draw, ylog=False, refs=True):
    """A panel per (degree rule, ρ), a series per policy drawn by ``draw(ax, rows, color, policy)``;
    optionally the T*_N (dashed) and JIQ-fluid (dotted) references."""
    ok = df[df["status"] == "ok"]
    rows, cols = _panels(ok, "degree_label", "rho")
    fig, axes = _grid(len(rows), len(cols))
    order, colors = _colors(ok["policy"])
    for i, dl in enumerate(rows):
        for j, rho in enumerate(cols):
            ax = axes[i][j]
            sub = ok[(ok["degree_label"] == dl) & (ok["rho"] == rho)]
            for p in order:
                g = sub[sub["policy"] == p]
                if not g.empty:
                    draw(ax, g, colors[p], p)
            if refs:
                ref = sub.drop_duplicates("N").sort_values("N")
                ax.plot(ref["N"], ref["t_star_graph"], "k--", lw=1, label="T*_N (graph bound)")
                ax.plot(ref["N"], ref["jiq_fluid"], "k:", lw=1, label="JIQ fluid")
            ax.set_xscale("log")
            if ylog:
                ax.set_yscale("log")
            ax.set_title(f"ρ = {rho:g}, D_N: {dl}", fontsize=8)
            ax.set_xlabel("N (servers)")
            ax.set_ylabel(ylabel)
    _legend(fig, axes)
    fig.suptitle(title, fontsize=9)
    save_figure(fig, path)


def plot_b1(df, path):
    """B1: E[T] vs N per policy; dashed: T*_N (graph bound), dotted: JIQ fluid limit."""
    _policy_panels(
        df,
        path,
        "B1: mean response time vs N (unstable policy/load pairs omitted)",
        "E[T]",
        lambda ax, g, color, p: _errorbars(
            ax, g, "N", "mean_response", "mean_response_ci_lo", "mean_response_ci_hi", color, p
        ),
    )


def plot_b2(df, path):
    """B2: E[T] − T*_N vs N, log–log, per policy (convergence of JFSQ/JFIQ only)."""

    def draw(ax, g, color, p):
        g = g[g["excess_over_t_star"] > 0]
        if not g.empty:
            _excess_bars(ax, g, color, p)

    _policy_panels(
        df,
        path,
        "B2: distance to the lower bound T*_N (graph bound); CIs cut at a tenth of the estimate",
        "E[T] − T*_N",
        draw,
        ylog=True,
        refs=False,
    )


def _response_vs(df, x, xlabel, title, path, refs):
    """One panel of E[T] against ``x`` per policy, with horizontal or curved reference lines."""
    ok = df[df["status"] == "ok"]
    fig, axes = _grid(1, 1, w=5.0, h=3.2)
    ax = axes[0][0]
    order, colors = _colors(ok["policy"])
    for p in order:
        _errorbars(
            ax, ok[ok["policy"] == p], x, "mean_response", "mean_response_ci_lo", "mean_response_ci_hi", colors[p], p
        )
    ref = ok.drop_duplicates(x).sort_values(x)
    for column, style, label in refs:
        ax.plot(ref[x], ref[column], style, color="k", lw=1, label=label)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("E[T]")
    ax.legend(fontsize=6)
    ns = ", ".join(str(v) for v in sorted(ok["N"].unique()))
    ax.set_title(title.format(N=ns, rho=", ".join(f"{v:g}" for v in sorted(ok["rho"].unique()))), fontsize=9)
    return fig, ax


def plot_b3(df, path):
    """B3: E[T] vs graph degree D_N at fixed N, per policy; dashed: T*_N (graph bound)."""
    fig, ax = _response_vs(
        df,
        "degree",
        "degree D_N (servers per job type)",
        "B3: sparsity threshold (N = {N}, ρ = {rho})",
        path,
        [("t_star_graph", "--", "T*_N (graph bound)"), ("jiq_fluid", ":", "JIQ fluid")],
    )
    ax.set_xscale("log")
    save_figure(fig, path)


def plot_b4(df, path):
    """B4: E[T] − T*_N vs N in the sub-Halfin–Whitt regime ρ_N = 1 − βN^−α, per α."""
    ok = df[df["status"] == "ok"]
    rows, cols = _panels(ok, None, "alpha")
    fig, axes = _grid(1, len(cols))
    order, colors = _colors(ok["policy"])
    styles = dict(zip(sorted(ok["degree_label"].unique()), ["-", "--", ":", "-."]))
    markers = dict(zip(sorted(ok["degree_label"].unique()), ["o", "s", "^", "D"]))
    for j, alpha in enumerate(cols):
        ax = axes[0][j]
        sub = ok[ok["alpha"] == alpha]
        for p in order:
            for dl, ls in styles.items():
                g = sub[(sub["policy"] == p) & (sub["degree_label"] == dl) & (sub["excess_over_t_star"] > 0)]
                if not g.empty:
                    _excess_bars(ax, g, colors[p], f"{p}, D_N: {dl}", marker=markers[dl], ls=ls)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"α = {alpha:g}", fontsize=8)
        ax.set_xlabel("N (servers)")
        ax.set_ylabel("E[T] − T*_N")
    _legend(fig, axes, fontsize=5)
    fig.suptitle("B4: sub-Halfin–Whitt load ρ_N = 1 − βN^(−α)", fontsize=9)
    save_figure(fig, path)


def plot_b5(df, path):
    """B5: E[T] vs ρ per policy; dashed: T*_N; dotted: JIQ fluid."""
    fig, _ = _response_vs(
        df,
        "rho",
        "load ρ = Λ/Σμ",
        "B5: E[T] vs load (N = {N})",
        path,
        [("t_star_graph", "--", "T*_N"), ("jiq_fluid", ":", "JIQ fluid")],
    )
    save_figure(fig, path)


BIPARTITE_FIGURES = {"B1": plot_b1, "B2": plot_b2, "B3": plot_b3, "B4": plot_b4, "B5": plot_b5}
