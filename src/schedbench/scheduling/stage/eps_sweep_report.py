"""The ε sweep's report (:mod:`~schedbench.scheduling.stage.eps_sweep` runs it): per series,
problem and algorithm the growth of the worst ratio found along the series' variable — 1/ε, or m
in an m series — fitted as a power and in the form of the algorithm's proven bound with a 95 %
interval; the paper's growth table (a longtable, a heading per series) and the finding in one
sentence per series."""

from __future__ import annotations

import math
import re
from typing import Sequence

import numpy as np
import pandas as pd

from schedbench.hall.latex import eps_text, fmt_cell, longtable, tex_text
from schedbench.scheduling.problems import get_problem

__all__ = [
    "AXIS",
    "TABLE_CAPTION",
    "growth_exponent",
    "increment_per_halving",
    "bound_kind",
    "growth_fit",
    "growth_table",
    "series_order",
    "series_heading",
    "growth_table_tex",
    "sweep_finding",
]


def growth_exponent(inv_eps: Sequence[float], values: Sequence[float]) -> tuple[float, float, float]:
    """(least-squares slope, smallest, largest step slope) of log(value) against log(1/ε): the
    exponent b of value ∝ (1/ε)^b, and its range over consecutive ε steps. NaN when fewer than
    two finite positive points."""
    x, y = np.asarray(inv_eps, dtype=float), np.asarray(values, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y = np.log(x[ok]), np.log(y[ok])
    if x.size < 2 or np.ptp(x) == 0:
        return math.nan, math.nan, math.nan
    order = np.argsort(x)
    x, y = x[order], y[order]
    slope = float(np.polyfit(x, y, 1)[0])
    steps = np.diff(y) / np.diff(x)
    return slope, float(steps.min()), float(steps.max())


def increment_per_halving(inv_eps: Sequence[float], values: Sequence[float]) -> float:
    """Least-squares slope of the value against log₂(1/ε): how much the ratio grows each time ε
    halves (constant for Θ(log 1/ε) growth; itself growing for a power of 1/ε) — or, given m,
    each time m doubles. NaN when fewer than two finite points."""
    x, y = np.asarray(inv_eps, dtype=float), np.asarray(values, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0)
    x, y = np.log2(x[ok]), y[ok]
    if x.size < 2 or np.ptp(x) == 0:
        return math.nan
    return float(np.polyfit(x, y, 1)[0])


#: a proven bound of this form grows like a power of log(1/ε) (its fit is against log₂ 1/ε)
_LOG_BOUND = re.compile(r"log\S*\s*1/ε")


def bound_kind(algorithm: str) -> str:
    """``log`` when the algorithm's proven bound is logarithmic in 1/ε (e.g. O(log 1/ε),
    O(log² 1/ε)), else ``power`` (a power of 1/ε, or no bound: the power fit is the default)."""
    from schedbench.scheduling.registry import get_algorithm

    return "log" if _LOG_BOUND.search(get_algorithm(algorithm).bound or "") else "power"


def growth_fit(inv_eps: Sequence[float], values: Sequence[float], kind: str) -> tuple[float, float, float]:
    """The least-squares growth of the worst ratio in the form its bound has, with a 95 % CI
    (Student t, n − 2 degrees of freedom; NaN below three points): ``power``, the exponent b of
    value ∝ (1/ε)^b (slope of log value against log 1/ε); ``log``, the increase per halving of ε
    (slope of the value against log₂ 1/ε)."""
    from scipy import stats

    x, y = np.asarray(inv_eps, dtype=float), np.asarray(values, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & ((y > 0) if kind == "power" else True)
    x, y = x[ok], y[ok]
    x, y = (np.log(x), np.log(y)) if kind == "power" else (np.log2(x), y)
    if x.size < 2 or np.ptp(x) == 0:
        return math.nan, math.nan, math.nan
    fit = stats.linregress(x, y)
    if x.size < 3:
        return float(fit.slope), math.nan, math.nan
    half = float(stats.t.ppf(0.975, x.size - 2) * fit.stderr)
    return float(fit.slope), float(fit.slope - half), float(fit.slope + half)


def series_order(points: pd.DataFrame) -> list[str]:
    """The series of a points (or growth) table in reading order: the ε series with m = 1/ε, then
    those at a fixed m (fewest machines first), then the m series (by their ε)."""
    keys = {}
    for series, g in points.groupby("series", sort=True):
        ms = sorted(set(g["m_min"] if "m_min" in g else g["m"]) | set(g["m_max"] if "m_max" in g else g["m"]))
        if str(g["sweep"].iloc[0]) == "m":
            keys[series] = (2, -float(g["eps_max"].max() if "eps_max" in g else g["eps"].max()))
        else:
            keys[series] = (0, 0) if len(ms) > 1 else (1, ms[0])
    return sorted(keys, key=lambda name: (keys[name], name))


#: The swept variable of a series kind (column of the points table, and how the paper writes it).
AXIS = {"eps": ("inv_eps", "1/ε"), "m": ("m", "m")}


def growth_table(points: pd.DataFrame) -> pd.DataFrame:
    """Per (series, problem, algorithm): the fitted growth exponent of the worst ratio found along
    the series' variable (1/ε, or m in an m series), of what the adversaries force and of the
    proven bound, the fit in the bound's form with its interval, and the ratios at both ends.
    An m series is fitted per doubling of m (the separation's log m form)."""
    rows = []
    rank = {name: k for k, name in enumerate(series_order(points))}
    for (series, problem, algorithm), g in sorted(
        points.groupby(["series", "problem", "algorithm"], sort=True), key=lambda item: rank[item[0][0]]
    ):
        sweep = str(g["sweep"].iloc[0])
        col = AXIS[sweep][0]
        g = g.sort_values(col)
        x = g[col]
        found = growth_exponent(x, g["ratio"])
        adv = growth_exponent(x, g["adversary_best"])
        bound = growth_exponent(x, g["ratio_bound"])
        kind = bound_kind(algorithm) if sweep == "eps" else "log"
        fit = growth_fit(x, g["ratio"], kind)
        rows.append(
            {
                "series": series,
                "sweep": sweep,
                "problem": problem,
                "algorithm": algorithm,
                "model": g["model"].iloc[0],
                "points": len(g),
                "x_min": float(x.min()),
                "x_max": float(x.max()),
                "m_min": int(g["m"].min()),
                "m_max": int(g["m"].max()),
                "eps_min": float(g["eps"].min()),
                "eps_max": float(g["eps"].max()),
                "min_jobs_min": int(g["min_jobs"].min()),
                "budget_jobs_min": float(g["budget_jobs"].min()),
                "ratio_first": float(g["ratio"].iloc[0]),
                "ratio_last": float(g["ratio"].iloc[-1]),
                "found_exponent": found[0],
                "found_exponent_min": found[1],
                "found_exponent_max": found[2],
                "increment_per_doubling": increment_per_halving(x, g["ratio"]),
                "fit_kind": kind,
                "fit_slope": fit[0],
                "fit_lo": fit[1],
                "fit_hi": fit[2],
                "adversary_exponent": adv[0],
                "bound_exponent": bound[0],
                "grows": bool(float(g["ratio"].iloc[-1]) > float(g["ratio"].iloc[0]) + 1e-9),
                "clock_limited": int((g["limit_hit"] == "clock").sum()),
            }
        )
    return pd.DataFrame(rows)


#: the growth table's caption (a longtable carries its own; the paper inputs it as it is)
TABLE_CAPTION = (
    "Growth of the worst ALG/OPT found, per series of the sweep (headed by its machines, its "
    "$\\varepsilon$ and the fewest jobs a candidate holds): the worst found at the first and the last "
    "point, the exponent $b$ of ratio $\\propto x^b$ with $x = 1/\\varepsilon$ (or $x = m$ in an $m$ "
    "series; least squares, with its range over consecutive points), the increase per doubling of $x$, "
    "the fit in the form of the algorithm's proven bound (the exponent for a power of $1/\\varepsilon$, "
    "the increase per doubling for a bound logarithmic in $1/\\varepsilon$ and for every $m$ series) "
    "with its 95\\,\\% CI from three points on, and the same exponent for the adversaries' ratios and "
    "for the proven bound. $^\\dagger$: a point stopped by the wall clock."
)


def series_heading(g: pd.DataFrame) -> str:
    """One series in words (plain text), from its growth rows: its machines, its ε and the fewest
    jobs a candidate held, e.g. ``m = 8, ε from 1/2 to 1/32, ≥ 20/ε jobs``."""
    r = g.iloc[0]
    inv = eps_text
    if r["sweep"] == "m":
        machines, eps = f"m from {r['m_min']} to {r['m_max']}", f"ε = {inv(r['eps_min'])}"
    else:
        machines = f"m = {r['m_min']}" if r["m_min"] == r["m_max"] else "m = 1/ε (rounded up to 2^k)"
        eps = f"ε from {inv(r['eps_max'])} to {inv(r['eps_min'])}"
    per_inv = r["min_jobs_min"] * r["eps_max"] if r["sweep"] == "eps" else r["min_jobs_min"] * r["eps_min"]
    jobs = f", ≥ {per_inv:.0f}/ε jobs" if r["min_jobs_min"] > 1 else ""
    return f"{machines}, {eps}{jobs}"


def growth_table_tex(growth: pd.DataFrame) -> str:
    """The growth table of the paper (a ``longtable``, caption and label included): per series a
    heading row (:func:`series_heading`), then per problem and algorithm the worst ratio found at
    the first and the last point, the fitted exponent [range over steps], the increase per
    doubling of the swept variable, the fit in the bound's form [95 % CI], the adversaries' and
    the proven bound's exponents. A dagger marks a sweep with a point stopped by the wall clock."""
    head = (
        "problem & algorithm & first & last & exponent [range] & per doubling & fit [95\\,\\% CI] & "
        "adversaries & bound \\\\"
    )
    lines = []
    if growth.empty:
        lines.append("\\multicolumn{9}{l}{no \\texttt{search.eps\\_sweep} in this config} \\\\")
    for series, g in growth.groupby("series", sort=False):
        lines.append(
            f"\\multicolumn{{9}}{{@{{}}l}}{{\\textit{{series {tex_text(series)}: {tex_text(series_heading(g))}}}}} \\\\"
        )
        for _, r in g.iterrows():
            found = (
                "--"
                if not math.isfinite(r["found_exponent"])
                else f"{r['found_exponent']:.2f} [{r['found_exponent_min']:.2f}, {r['found_exponent_max']:.2f}]"
            )
            if r["clock_limited"]:
                found += "$^\\dagger$"
            lines.append(
                " & ".join(
                    [
                        tex_text(r["problem"]),
                        tex_text(r["algorithm"]),
                        fmt_cell(r["ratio_first"], ".3g"),
                        fmt_cell(r["ratio_last"], ".3g"),
                        found,
                        fmt_cell(r["increment_per_doubling"], "+.2f"),
                        _fit_cell(r),
                        fmt_cell(r["adversary_exponent"], ".2f"),
                        fmt_cell(r["bound_exponent"], ".2f"),
                    ]
                )
                + " \\\\"
            )
    return longtable(
        "@{}llrrlrlrr@{}",
        TABLE_CAPTION,
        "tab:eps_sweep",
        head,
        lines,
        size="scriptsize",
        tabcolsep="2pt",
        generated_by="scheduling.stage.eps_sweep_report.growth_table_tex",
    )


def _fit_cell(r) -> str:
    """``b = 0.52 [0.31, 0.73]`` (a power of 1/ε) or ``+0.40/doubling [0.10, 0.70]`` (a bound
    logarithmic in 1/ε, or an m series: per doubling of 1/ε or of m); the interval only from three
    points on."""
    if not math.isfinite(r["fit_slope"]):
        return "--"
    head = f"$b = {r['fit_slope']:.2f}$" if r["fit_kind"] == "power" else f"${r['fit_slope']:+.2f}$/doubling"
    if math.isfinite(r["fit_lo"]):
        head += f" [{r['fit_lo']:.2f}, {r['fit_hi']:.2f}]"
    return head


def sweep_finding(growth: pd.DataFrame | None) -> str:
    """The sweep's finding (plain text, generated from the growth table), one clause per series:
    how many sweeps found a worst ratio growing along the series' variable and the steepest fitted
    growth; in an m series, the largest increase per doubling of m in each model."""
    if growth is None or growth.empty:
        return "This config has no ε sweep."
    clauses = []
    for series, g in growth.groupby("series", sort=False):
        kind = str(g["sweep"].iloc[0])
        along = "as m grows" if kind == "m" else "as ε shrinks"
        grows = int(g["grows"].astype(bool).sum())
        text = f"series with {series_heading(g)}: {grows} of {len(g)} sweeps found a worst ALG/OPT that grows {along}"
        fitted = g.dropna(subset=["found_exponent"])
        if kind == "m":
            per = [
                f"{model} at most {d['increment_per_doubling'].max():+.2f} per doubling of m ({d.loc[d['increment_per_doubling'].idxmax(), 'algorithm']})"
                for model, d in g.dropna(subset=["increment_per_doubling"]).groupby("model", sort=True)
            ]
            if per:
                text += "; " + ", ".join(per)
        elif len(fitted):
            top = fitted.loc[fitted["found_exponent"].idxmax()]
            bound = top["bound_exponent"]
            text += (
                f"; the steepest is {top['algorithm']} on {get_problem(top['problem']).title}, exponent of 1/ε "
                f"{top['found_exponent']:.2f}" + (f" (its proven bound's: {bound:.2f})" if pd.notna(bound) else "")
            )
        clauses.append(text)
    return "In the ε sweep's " + "; in ".join(clauses) + "."
