"""Log–log slope fits of the loss experiments against the rates claimed by the loss model's source
(``docs/models/loss-system.md`` §6)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from schedbench.hall.stats import fit_loglog

__all__ = ["slope_table", "claimed_slope", "k_growth", "SLOPE_TOL", "fit_loglog"]

#: tolerance on a claimed rate (loss-system.md §6: consistent when slope ≤ claimed + 0.05)
SLOPE_TOL = 0.05


def claimed_slope(row: pd.Series, quantity: str) -> tuple[float, str]:
    """The seed's claimed rate for this series (upper bound on the slope), or NaN if none."""
    if row["k_rule"] == "full":
        if quantity == "blocking":
            return -0.5, "O(n^-1/2)"
        return -1.0, "O(1/n)"
    if row["k_rule"] == "log":
        return -(1 - row["alpha"]) / 2, "O(n^-(1-α)/2)"
    return math.nan, "no convergence claimed"


def k_growth(rule: str, param: float) -> str:
    """How the series' sample size k(n) grows against n^α (loss-system.md §1, §6): ``omega``
    (k = ω(n^α): ``full``, ``fraction``, ``log`` = c·n^α·ln n, ``power`` with γ − α > 0),
    ``theta`` (``power`` with γ = α), ``below`` (``power`` with γ < α), ``const``, or ``unknown``
    (``power`` without its parameter)."""
    if rule in ("full", "fraction", "log"):
        return "omega"
    if rule == "power":
        if not math.isfinite(param):
            return "unknown"  # a table without the rule's parameter: not classified
        return "omega" if param > 0 else ("theta" if param == 0 else "below")
    return "const"


def _verdict(fit: dict, exact: dict | None, claim: float) -> dict[str, Any]:
    """Is the claimed rate O(n^claim) consistent with the data? Judged on the simulation's fit;
    when the simulation cannot resolve the quantity (fewer than 3 points > 0, e.g. blocking far
    below 1/arrivals), on the exact values if there are any."""
    if not np.isfinite(claim):
        return {"consistent": None, "judged_on": None}
    if fit["points"] >= 3:
        return {"consistent": bool(fit["slope"] <= claim + SLOPE_TOL), "judged_on": "simulation"}
    if exact is not None and exact["points"] >= 3:
        return {"consistent": bool(exact["slope"] <= claim + SLOPE_TOL), "judged_on": "exact"}
    return {"consistent": None, "judged_on": None}


def slope_table(df: pd.DataFrame, min_n: int = 1000) -> pd.DataFrame:
    """One row per (experiment, d, α, k rule, quantity): fitted slope (and the exact slope)."""
    rows = []
    keys = ["experiment", "d", "alpha", "beta", "k_label", "k_rule"]
    for key, g in df[df["n"] >= min_n].groupby(keys, sort=True):
        g = g.sort_values("n")
        if g["n"].nunique() < 2:
            continue  # not a scaling series (A5 varies k at fixed n)
        for quantity in ("blocking", "excess_response"):
            if quantity == "excess_response" and (
                g["d"].iloc[0] == 1 or (g["k_rule"].iloc[0] == "full" and (g["n"] % g["d"] == 0).all())
            ):
                continue  # identically 0
            fit = fit_loglog(g["n"], g[quantity])
            exact_col = "exact_blocking" if quantity == "blocking" else "exact_excess"
            exact = fit_loglog(g["n"], g[exact_col]) if g[exact_col].notna().all() else None
            claim, claim_text = claimed_slope(g.iloc[0], quantity)
            rows.append(
                {
                    **dict(zip(keys, key)),
                    "k_growth": k_growth(
                        str(g["k_rule"].iloc[0]), float(g["k_param"].iloc[0]) if "k_param" in g else math.nan
                    ),
                    "quantity": quantity,
                    **fit,
                    "exact_slope": math.nan if exact is None else exact["slope"],
                    "claimed_slope": claim,
                    "claim": claim_text,
                    "value_at_max_n": float(g[quantity].iloc[-1]),
                    "max_n": int(g["n"].iloc[-1]),
                    **_verdict(fit, exact, claim),
                }
            )
    return pd.DataFrame(rows)
