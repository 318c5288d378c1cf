"""Figures A1–A5 of the loss system (docs/models/loss-system.md §7), one function each.

Each reads only the tidy loss table (one row per point: estimate, 95 % batch-means CI, exact
value where known) and draws log–log axes where the claim is a rate, with a dotted reference
line of the claimed slope. A panel draws at most :data:`MAX_LINES_PER_PANEL` colours (values of
d, c or k(n)); a grid with more is split over further panels, titled "(k of n)", each with its
legend.
"""

from __future__ import annotations


import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from schedbench.hall.figure_style import save_figure  # noqa: E402
from schedbench.hall.figure_style import (  # noqa: E402
    PANEL_HEIGHT,
    PANEL_WIDTH,
    TEXT_WIDTH,
    apply_style,
    colour_map,
    split_lines,
)

#: lowest value drawn on a log axis (exact blocking at α < 1/2 falls far below anything simulable)
FLOOR = 1e-12

QUANTITY = {"blocking": "blocking probability $P_B$", "excess_response": "$E[T] - 1/d$", "mean_response": "$E[T]$"}


def _series(ax, g, x, y, label, color, exact=None, marker="o"):
    g = g.sort_values(x)
    lo, hi = g[f"{y}_ci_lo"].to_numpy(), g[f"{y}_ci_hi"].to_numpy()
    val = g[y].to_numpy()
    pos = val > 0
    lo = np.maximum(lo, val / 10)  # log axes: a CI reaching below a tenth of the estimate is cut there
    ax.errorbar(
        g[x][pos],
        val[pos],
        yerr=[np.maximum(val - lo, 0)[pos], np.maximum(hi - val, 0)[pos]],
        fmt=marker,
        ms=4,
        capsize=2,
        color=color,
        label=label,
    )
    ax.plot(g[x][pos], val[pos], "-", color=color, lw=0.8, alpha=0.6)
    if exact is not None and g[exact].notna().any():
        e = g[exact].to_numpy()
        ok = np.isfinite(e) & (e > 0)
        ax.plot(g[x][ok], e[ok], "--", color=color, lw=1.2, alpha=0.9)


def _reference(ax, xs, slope, anchor_y, text):
    xs = np.array([min(xs), max(xs)], dtype=float)
    ax.plot(xs, anchor_y * (xs / xs[0]) ** slope, ":", color="0.3", lw=1)
    ax.annotate(
        text, (xs[-1], anchor_y * (xs[-1] / xs[0]) ** slope), fontsize=7.5, color="0.3", ha="right", va="bottom"
    )


def _grid(ncols, nrows=1, w=PANEL_WIDTH, h=PANEL_HEIGHT):
    """Panels that fit the text width, so the figure prints at 100 %."""
    apply_style()
    w = min(w, TEXT_WIDTH / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols, h * nrows), squeeze=False, layout="constrained")
    return fig, axes


def _key(v):
    return (str(type(v)), v)


def _sorted(values) -> list:
    return sorted(values, key=_key)


def _palette(values):
    return colour_map(values, key=_key)


def _hue_chunks(values) -> list[tuple[str, list]]:
    """A panel's colours, sorted, as panels of at most :data:`MAX_LINES_PER_PANEL` each
    (:func:`~schedbench.hall.figure_style.split_lines`), with the title suffix of each
    (" (k of n)" when split, else "")."""
    return split_lines("", _sorted(values))


def _by_hue_panels(df, panel_col, hue_col, quantity, path, title, ref_slope=None, exact=None, legend_title=None):
    panels = [  # each panel value's own colours, split past six
        (p, part, chunk)
        for p in _sorted(df[panel_col].unique())
        for part, chunk in _hue_chunks(df.loc[df[panel_col] == p, hue_col].unique())
    ]
    fig, axes = _grid(len(panels))
    colors = _palette(df[hue_col].unique())
    split = len(panels) > len(df[panel_col].unique())
    for ax, (p, part, chunk) in zip(axes[0], panels):
        sub = df[(df[panel_col] == p) & df[hue_col].isin(chunk)]
        for h in _sorted(sub[hue_col].unique()):
            _series(ax, sub[sub[hue_col] == h], "n", quantity, f"{h}", colors[h], exact)
        ax.set_xscale("log")
        ax.set_yscale("log")
        bottom, top = ax.get_ylim()
        ax.set_ylim(max(bottom, FLOOR), min(top, 1.5) if quantity == "blocking" else top)
        slope = ref_slope(p) if callable(ref_slope) else ref_slope
        pos = sub[sub[quantity] > 0]
        if slope is not None and not pos.empty:
            _reference(ax, sub["n"], slope, pos[quantity].max(), f"slope {slope:g}")
        ax.set_title(f"{panel_col} = {p}{part}")
        ax.set_xlabel("n (servers)")
        ax.set_ylabel(QUANTITY[quantity])
        if split:  # each panel its own colours
            ax.legend(title=legend_title or hue_col, fontsize="small")
    if not split:
        axes[0][-1].legend(title=legend_title or hue_col, fontsize="small")
    fig.suptitle(title, fontsize=9)
    save_figure(fig, path)


def plot_a1(df, path):
    """A1: P_B vs n at k = n, one panel per α, one colour per d; dashed: exact Erlang-B."""
    _by_hue_panels(
        df,
        "alpha",
        "d",
        "blocking",
        path,
        "A1: full access k = n, λ = 1 − βn^(−α) (markers: simulation, dashed: exact)",
        ref_slope=-0.5,
        exact="exact_blocking",
    )


def plot_a2(df, path):
    """A2: E[T] − 1/d vs n at k = n with n ≡ 1 (mod d); dashed: exact two-phase chain."""
    _by_hue_panels(
        df,
        "alpha",
        "d",
        "excess_response",
        path,
        "A2: full access, n ≡ 1 mod d (dashed: exact)",
        ref_slope=-1.0,
        exact="exact_excess",
    )


def plot_a3(df, path):
    """A3: P_B and E[T] − 1/d vs n for k = ⌈c n^α ln n⌉, colours = c, panels = α × quantity."""
    columns = [
        (alpha, part, chunk)
        for alpha in _sorted(df["alpha"].unique())
        for part, chunk in _hue_chunks(df.loc[df["alpha"] == alpha, "k_param"].unique())  # its own c, split past six
    ]
    fig, axes = _grid(len(columns), nrows=2)
    colors = _palette(df["k_param"].unique())
    split = len(columns) > df["alpha"].nunique()
    for col, (alpha, part, chunk) in enumerate(columns):
        sub = df[(df["alpha"] == alpha) & df["k_param"].isin(chunk)]
        for row, q in enumerate(("blocking", "excess_response")):
            ax = axes[row][col]
            for c in _sorted(sub["k_param"].unique()):
                _series(ax, sub[sub["k_param"] == c], "n", q, f"c = {c:g}", colors[c])
            ax.set_xscale("log")
            ax.set_yscale("log")
            pos = sub[sub[q] > 0]
            if not pos.empty:
                _reference(ax, sub["n"], -(1 - alpha) / 2, pos[q].max(), f"slope −(1−α)/2 = {-(1 - alpha) / 2:g}")
            ax.set_title(f"α = {alpha:g}{part}")
            ax.set_xlabel("n (servers)")
            ax.set_ylabel(QUANTITY[q])
        if split:  # each column its own colours
            axes[0][col].legend(fontsize="small")
    if not split:
        axes[0][-1].legend(fontsize="small")
    fig.suptitle("A3: k = ⌈c n^α ln n⌉", fontsize=9)
    save_figure(fig, path)


def plot_a4(df, path):
    """A4: P_B and E[T] − 1/d vs n for small samples: k = ⌈n^γ⌉ (γ around α) and constant k."""
    chunks = _hue_chunks(df["k_label"].unique())
    fig, axes = _grid(2 * len(chunks))
    colors = _palette(df["k_label"].unique())
    for k, (part, chunk) in enumerate(chunks):  # a pair of panels per chunk of k(n)
        for ax, q in zip(axes[0][2 * k : 2 * k + 2], ("blocking", "excess_response")):
            for lab in chunk:
                _series(ax, df[df["k_label"] == lab], "n", q, lab, colors[lab])
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("n (servers)")
            ax.set_ylabel(QUANTITY[q])
            ax.set_title(part.strip(" ()"))
        axes[0][2 * k + 1].legend(fontsize="small", title="k(n)")
    alphas = ", ".join(f"{a:g}" for a in sorted(df["alpha"].unique()))
    fig.suptitle(f"A4: sample size below n^α (α = {alphas}; power: k = ⌈n^(α+offset)⌉)", fontsize=9)
    save_figure(fig, path)


def plot_a5(df, path):
    """A5: P_B and E[T] vs k/n at fixed n, one colour per d (the trade-off curve)."""
    data = df.assign(k_over_n=df["k"] / df["n"])
    chunks = _hue_chunks(data["d"].unique())
    fig, axes = _grid(2 * len(chunks))
    colors = _palette(data["d"].unique())
    for k, (part, chunk) in enumerate(chunks):  # a pair of panels per chunk of d
        for ax, q in zip(axes[0][2 * k : 2 * k + 2], ("blocking", "mean_response")):
            for d in chunk:
                _series(ax, data[data["d"] == d], "k_over_n", q, f"d = {d}", colors[d])
            ax.set_xscale("log")
            ax.set_xlabel("k / n")
            ax.set_ylabel(QUANTITY[q])
            ax.set_title(part.strip(" ()"))
        axes[0][2 * k + 1].legend(fontsize="small")
    ns = ", ".join(str(v) for v in sorted(data["n"].unique()))
    fig.suptitle(f"A5: sample size trade-off (n = {ns})", fontsize=9)
    save_figure(fig, path)


LOSS_FIGURES = {"A1": plot_a1, "A2": plot_a2, "A3": plot_a3, "A4": plot_a4, "A5": plot_a5}
