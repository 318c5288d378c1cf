"""Log–log rate fits shared by the queueing experiments."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["fit_loglog", "bipartite_rates"]


def fit_loglog(n: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """OLS fit of log y = a + b log n over the points with y > 0: slope b with a 95 % CI."""
    n, y = np.asarray(n, float), np.asarray(y, float)
    keep = np.isfinite(y) & (y > 0)
    out = {"points": int(keep.sum()), "slope": math.nan, "slope_lo": math.nan, "slope_hi": math.nan}
    if keep.sum() < 3:
        return out
    fit = stats.linregress(np.log(n[keep]), np.log(y[keep]))
    half = stats.t.ppf(0.975, keep.sum() - 2) * fit.stderr
    out.update(slope=float(fit.slope), slope_lo=float(fit.slope - half), slope_hi=float(fit.slope + half))
    return out


def bipartite_rates(df: pd.DataFrame, min_points: int = 3) -> pd.DataFrame:
    """Empirical rate of E[T] − T*_N in N for each (experiment, load, degree rule, policy) series
    with at least ``min_points`` sizes (B2, B4): the paper states no rate, so it is fitted, not checked."""
    rows = []
    ok = df[df["status"] == "ok"]
    keys = ["experiment", "rho_label", "degree_label", "policy"]
    data = ok.assign(rho_label=np.where(ok["alpha"].notna(), "rho = 1 - beta N^-" + ok["alpha"].astype(str),
                                        "rho = " + ok["rho"].map(lambda v: f"{v:g}")))
    for key, g in data.groupby(keys, sort=True):
        if g["N"].nunique() < min_points:
            continue
        g = g.sort_values("N")
        fit = fit_loglog(g["N"], g["excess_over_t_star"])
        rows.append({**dict(zip(keys, key)), **fit, "n_min": int(g["N"].min()), "n_max": int(g["N"].max()),
                     "excess_at_max_n": float(g["excess_over_t_star"].iloc[-1])})
    return pd.DataFrame(rows)
