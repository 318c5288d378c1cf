"""Derived columns shared by figures and tables (they read only the tidy results table)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["add_labels", "broadcast_over_eps", "eps_axis_label", "format_value", "successful"]


def format_value(v) -> str:
    """A parameter value as a label shows it: integral floats (parquet turns int columns with
    nulls into floats) without the ``.0``."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def add_labels(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``label``: the algorithm name plus the parameters that take more than one value for
    that algorithm in the table (``p_*``), e.g. ``lb-unit-reject (alpha_rule=safe)``; a parameter
    held at one value throughout is left out (the method table gives it). Cast to ``object``
    (seaborn 0.13.2 hue-order pitfall)."""
    pcols = sorted(c for c in df.columns if c.startswith("p_"))

    def present(v) -> bool:
        return v is not None and not (isinstance(v, float) and np.isnan(v))

    varying = {
        alg: [c for c in pcols if rows[c].map(present).any() and rows[c].astype(str).nunique() > 1]
        for alg, rows in df.groupby("algorithm", sort=False)
    }

    def label(row) -> str:
        parts = [f"{c[2:]}={format_value(row[c])}" for c in varying.get(row["algorithm"], []) if present(row[c])]
        return row["algorithm"] + (f" ({', '.join(parts)})" if parts else "")

    out = df.copy()
    out["label"] = pd.Series([label(r) for _, r in out.iterrows()], index=out.index, dtype=object)
    return out


def successful(df: pd.DataFrame) -> pd.DataFrame:
    """Rows whose outcome passed the validator (status ``ok``)."""
    return df[df["status"] == "ok"]


def broadcast_over_eps(df: pd.DataFrame) -> pd.DataFrame:
    """Repeat each ε-free (plain) row once per ε of its experiment (or, for an experiment with
    only plain algorithms, once per ε of the whole table) so it draws as a flat line."""
    parts = [df[df["eps"].notna()]]
    plain = df[df["eps"].isna()]
    everywhere = sorted(df["eps"].dropna().unique())
    for exp, rows in plain.groupby("experiment", sort=True):
        grid = sorted(df.loc[(df["experiment"] == exp) & df["eps"].notna(), "eps"].unique()) or everywhere
        for eps in grid:
            parts.append(rows.assign(eps=eps))
    return pd.concat(parts, ignore_index=True)


def eps_axis_label(models) -> str:
    """What ε means on an axis, from the models of the rows drawn there: the rejected fraction
    (rejection model), the extra speed 1+ε (speed model), or both."""
    kinds = set(models) - {"plain", "reference"}
    if kinds == {"speed"}:
        return "ε (machines at speed 1+ε)"
    if kinds == {"rejection", "speed"}:
        return "ε (rejected fraction; speed 1+ε for speed-model rows)"
    return "ε (rejected fraction)"
