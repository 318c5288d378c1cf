"""Figures B1–B5 of the bipartite model (docs/models/bipartite.md §9), one function each. Each reads only
the tidy bipartite table (one row per group × policy) and draws 95 % batch-means CIs."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from schedbench.hall.figure_style import save_figure  # noqa: E402
from schedbench.hall.figure_style import MAX_LINES_PER_PANEL, PANEL_WIDTH, TEXT_WIDTH, apply_style, palette  # noqa: E402

POLICY_ORDER = ["jfsq", "jfiq", "jsq", "jiq", "jsq-d", "random", "random-mu"]
#: the policies by whether they use the servers' speeds (docs/models/bipartite.md §3): a figure
#: whose panels would carry more than MAX_LINES_PER_PANEL lines draws each class in its own panels
POLICY_CLASSES = (
    ("speed-aware", ("jfsq", "jfiq", "random-mu")),
    ("speed-oblivious", ("jsq", "jiq", "jsq-d", "random")),
)


def _colors(policies):
    ordered = [p for p in POLICY_ORDER if p in set(policies)]
    return ordered, dict(zip(ordered, palette(len(ordered))))


#: the width a row's legend takes right of its last panel (inches)
LEGEND_WIDTH = 0.9


def _grid(nrows, ncols, w=PANEL_WIDTH, h=2.4):
    """Panels that fit the text width with a legend beside them, so the figure prints at 100 %."""
    apply_style()
    w = min(w, (TEXT_WIDTH - LEGEND_WIDTH) / ncols)
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


def _row_legend(axes_row):
    """One legend for a row of panels (the lines of one policy class), right of its last panel."""
    seen = {}
    for ax in axes_row:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    axes_row[-1].legend(
        list(seen.values()), list(seen), fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False
    )


def policy_classes(policies, n_references: int) -> list[tuple[str, list[str]]]:
    """``(title, policies)`` per panel class: all policies in one class ("") when they fit a panel
    with the ``n_references`` reference lines, else by :data:`POLICY_CLASSES`, in the order of
    :data:`POLICY_ORDER`."""
    order, _ = _colors(policies)
    if len(order) + n_references <= MAX_LINES_PER_PANEL:
        return [("", order)]
    out = [(title, [p for p in order if p in members]) for title, members in POLICY_CLASSES]
    return [(title, members) for title, members in out if members]


def _panels(df, row_key, col_key):
    rows = sorted(df[row_key].unique()) if row_key else [None]
    cols = sorted(df[col_key].unique()) if col_key else [None]
    return rows, cols


def _positive_excess_bars(ax, g, color, policy):
    """One policy's E[T] − T*_N where it is positive (a log axis; below T*_N is the bound's error)."""
    g = g[g["excess_over_t_star"] > 0]
    if not g.empty:
        _excess_bars(ax, g, color, policy)


def _policy_panels(df, path, title, ylabel, draw, ylog=False, refs=True, col_key="rho", col_name="ρ"):
    """A panel per (degree rule, ``col_key``: ρ or α), a series per policy drawn by ``draw(ax, rows, color, policy)``;
    optionally the T*_N (dashed) and JIQ-fluid (dotted) references. When the policies and the
    references exceed the panel limit, each degree rule gets a row per policy class
    (:func:`policy_classes`) with its own legend."""
    ok = df[df["status"] == "ok"]
    rows, cols = _panels(ok, "degree_label", col_key)
    order, colors = _colors(ok["policy"])
    classes = policy_classes(order, 2 if refs else 0)
    fig, axes = _grid(len(rows) * len(classes), len(cols))
    for i, (dl, (cls, members)) in enumerate((dl, c) for dl in rows for c in classes):
        for j, value in enumerate(cols):
            ax = axes[i][j]
            sub = ok[(ok["degree_label"] == dl) & (ok[col_key] == value)]
            for p in members:
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
            ax.set_title(f"{col_name} = {value:g}\ndegree {dl}" + (f", {cls}" if cls else ""), fontsize=8)
            ax.set_xlabel("N (servers)")
            if j == 0:  # the row's quantity, once: the panels keep their width at print size
                ax.set_ylabel(ylabel)
        _row_legend(axes[i])
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

    _policy_panels(
        df,
        path,
        "B2: distance to the lower bound T*_N (graph bound); CIs cut at a tenth of the estimate",
        "E[T] − T*_N",
        _positive_excess_bars,
        ylog=True,
        refs=False,
    )


def _response_vs(df, x, xlabel, title, path, refs):
    """E[T] against ``x`` per policy, with horizontal or curved reference lines: one panel, or
    one per policy class when the lines would exceed the panel limit (:func:`policy_classes`)."""
    ok = df[df["status"] == "ok"]
    order, colors = _colors(ok["policy"])
    classes = policy_classes(order, len(refs))
    fig, axes = _grid(1, len(classes), w=5.0 if len(classes) == 1 else PANEL_WIDTH, h=3.2)
    ns = ", ".join(str(v) for v in sorted(ok["N"].unique()))
    ref = ok.drop_duplicates(x).sort_values(x)
    for ax, (cls, members) in zip(axes[0], classes):
        for p in members:
            _errorbars(
                ax,
                ok[ok["policy"] == p],
                x,
                "mean_response",
                "mean_response_ci_lo",
                "mean_response_ci_hi",
                colors[p],
                p,
            )
        for column, style, label in refs:
            ax.plot(ref[x], ref[column], style, color="k", lw=1, label=label)
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("E[T]")
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, frameon=False)
        ax.set_title(cls, fontsize=8)
    fig.suptitle(title.format(N=ns, rho=", ".join(f"{v:g}" for v in sorted(ok["rho"].unique()))), fontsize=9)
    return fig, axes[0]


def plot_b3(df, path):
    """B3: E[T] vs graph degree D_N at fixed N, per policy; dashed: T*_N (graph bound)."""
    fig, axes = _response_vs(
        df,
        "degree",
        "degree D_N (servers per job type)",
        "B3: sparsity threshold (N = {N}, ρ = {rho})",
        path,
        [("t_star_graph", "--", "T*_N (graph bound)"), ("jiq_fluid", ":", "JIQ fluid")],
    )
    for ax in axes:
        ax.set_xscale("log")
    save_figure(fig, path)


def plot_b4(df, path):
    """B4: E[T] − T*_N vs N in the sub-Halfin–Whitt regime ρ_N = 1 − βN^−α, a panel per
    (degree rule, α), log–log."""

    _policy_panels(
        df,
        path,
        "B4: sub-Halfin–Whitt load ρ_N = 1 − βN^(−α); CIs cut at a tenth of the estimate",
        "E[T] − T*_N",
        _positive_excess_bars,
        ylog=True,
        refs=False,
        col_key="alpha",
        col_name="α",
    )


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
