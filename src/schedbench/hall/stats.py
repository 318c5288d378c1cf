"""Statistics in one module: the percentile-bootstrap CI of the tables (:func:`bootstrap_ci`; the
figures use seaborn's own bootstrap), the Student-t CI over batch means of the queueing simulators
(:func:`batch_ci`), and the log–log slope fits of the queueing models' rates (:func:`fit_loglog`).

scipy is imported inside the functions that need it, not at import: the Snakefile imports the
queueing wings, and scipy.stats costs about 1 s per parse."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["MIN_SUMMARY_N", "bootstrap_ci", "batch_ci", "fit_loglog"]

#: the fewest instances a mean, a confidence band or an ECDF is drawn over, and a practice
#: comparison is a headline over; with fewer, a figure draws each instance's value instead and
#: its title says so (:func:`schedbench.hall.figure_style.few_note`)
MIN_SUMMARY_N = 10


def bootstrap_ci(values, level: float = 0.95, n_boot: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean and percentile-bootstrap CI of the mean; (mean, mean, mean) for fewer than 2 values."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return (np.nan, np.nan, np.nan)
    mean = float(x.mean())
    if x.size < 2 or np.all(x == x[0]):
        return (mean, mean, mean)
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(n_boot, x.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return (mean, float(lo), float(hi))


def fit_loglog(n: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """OLS fit of log y = a + b log n over the points with y > 0: slope b with a 95 % CI."""
    from scipy import stats

    n, y = np.asarray(n, float), np.asarray(y, float)
    keep = np.isfinite(y) & (y > 0)
    out = {"points": int(keep.sum()), "slope": math.nan, "slope_lo": math.nan, "slope_hi": math.nan}
    if keep.sum() < 3:
        return out
    fit = stats.linregress(np.log(n[keep]), np.log(y[keep]))
    half = stats.t.ppf(0.975, keep.sum() - 2) * fit.stderr
    out.update(slope=float(fit.slope), slope_lo=float(fit.slope - half), slope_hi=float(fit.slope + half))
    return out


def batch_ci(values: np.ndarray, level: float = 0.95) -> tuple[float, tuple[float, float]]:
    """Mean and Student-t confidence interval over batch estimates."""
    from scipy import stats

    v = np.asarray(values, dtype=np.float64)
    mean = float(v.mean())
    if v.size < 2:
        return mean, (math.nan, math.nan)
    half = float(stats.t.ppf(0.5 + level / 2, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))
    return mean, (mean - half, mean + half)
