"""The bipartite wing's rate fits: log–log slopes of E[T] against N (the fit itself is the hall's
:func:`schedbench.hall.stats.fit_loglog`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedbench.hall.stats import fit_loglog

__all__ = ["bipartite_rates"]


def bipartite_rates(df: pd.DataFrame, min_points: int = 3) -> pd.DataFrame:
    """Empirical rate of E[T] − T*_N in N for each (experiment, load, degree rule, policy) series
    with at least ``min_points`` sizes (B2, B4): the paper states no rate, so it is fitted, not checked."""
    rows = []
    ok = df[df["status"] == "ok"]
    keys = ["experiment", "rho_label", "degree_label", "policy"]
    data = ok.assign(
        rho_label=np.where(
            ok["alpha"].notna(),
            "rho = 1 - beta N^-" + ok["alpha"].astype(str),
            "rho = " + ok["rho"].map(lambda v: f"{v:g}"),
        )
    )
    for key, g in data.groupby(keys, sort=True):
        if g["N"].nunique() < min_points:
            continue
        g = g.sort_values("N")
        fit = fit_loglog(g["N"], g["excess_over_t_star"])
        rows.append(
            {
                **dict(zip(keys, key)),
                # the load regime (docs/models/bipartite.md §2): ρ_N = 1 − βN^−α when α is given
                "regime": "sub-halfin-whitt" if g["alpha"].notna().any() else "many-server",
                **fit,
                "n_min": int(g["N"].min()),
                "n_max": int(g["N"].max()),
                "excess_at_max_n": float(g["excess_over_t_star"].iloc[-1]),
            }
        )
    return pd.DataFrame(rows)
