"""Assemble the tidy results table from the pipeline's parts: the runs joined with the OPT
rows of their instances (family instances and adversary-realised ones alike)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from schedbench.hall.io import tied_instances
from schedbench.scheduling.stage.metrics import format_value

__all__ = ["assemble", "join_opt", "parameter_columns", "tied_instances", "IDENTITY", "OPT_COLUMNS"]

IDENTITY = ["experiment", "instance", "algorithm", "eps", "seed"]
OPT_COLUMNS = ["opt", "opt_status", "opt_lower_bound", "opt_solver", "opt_seconds", "opt_is_trivial", "opt_witness"]


def join_opt(runs: pd.DataFrame, opts: pd.DataFrame) -> pd.DataFrame:
    """Add the OPT columns of each run's instance and ``ratio`` = objective / denominator,
    where the denominator is OPT when proven and its lower bound otherwise (``opt_status``
    says which). A run whose instance has no OPT row (a run that failed before realising its
    instance) gets ``opt_status = "none"`` and a NaN ratio."""
    if opts.empty:
        opts = pd.DataFrame({c: pd.Series(dtype=object) for c in ["instance", *OPT_COLUMNS]})
    if "opt_witness" not in opts.columns:  # an OPT table from before witnesses were recorded
        opts = opts.assign(opt_witness="")
    if opts["instance"].duplicated().any():
        raise ValueError(f"OPT table: instance {opts['instance'][opts['instance'].duplicated()].iloc[0]!r} twice")
    out = runs.drop(columns=[c for c in OPT_COLUMNS + ["ratio", "opt_gap"] if c in runs.columns])
    out = out.merge(opts[["instance", *OPT_COLUMNS]], on="instance", how="left", validate="many_to_one")
    missing = out["opt_status"].isna()
    out.loc[missing, "opt_status"] = "none"
    out.loc[missing, "opt_solver"] = "none"
    out.loc[missing, "opt_is_trivial"] = False
    out["opt_witness"] = out["opt_witness"].fillna("").astype(str)
    for c in ("opt", "opt_lower_bound", "opt_seconds"):
        out[c] = out[c].astype(float)
    out.loc[missing, "opt_seconds"] = 0.0
    out["opt_is_trivial"] = out["opt_is_trivial"].astype(bool)
    den = np.where(out["opt_status"] == "optimal", out["opt"], out["opt_lower_bound"])
    optimal = (out["opt_status"] == "optimal").to_numpy()
    opt = out["opt"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["ratio"] = np.where(den > 0, out["objective"] / den, math.nan)
        # the gap of a bounded OPT (value − bound)/value, as OptResult.gap: 0 when proven
        gap = np.where(
            np.isfinite(opt) & (opt > 0), (opt - out["opt_lower_bound"].to_numpy(dtype=float)) / opt, math.nan
        )
        out["opt_gap"] = np.where(optimal, 0.0, gap)
    return out


def parameter_columns(table: pd.DataFrame) -> list[str]:
    """Normalise the parameter columns (``p_*`` of algorithms, ``g_*`` of adversaries) in place
    and return their names, sorted: a parameter an algorithm does not have is None (not NaN),
    and a name that several algorithms give values of different types (ssf-edf's slack base
    c = 2.0 next to wmft-B's timeout c = "1/eps") holds text, numbers written as the labels
    show them. Done for each online batch (several algorithms in one parquet file) and again
    when the batches are joined."""
    pcols = sorted(c for c in table.columns if c.startswith(("g_", "p_")))
    for c in pcols:
        table[c] = table[c].astype(object).where(table[c].notna(), None)
        kinds = {type(v) for v in table[c] if v is not None}
        if len(kinds) > 1 and str in kinds:
            table[c] = [None if v is None else (v if isinstance(v, str) else format_value(v)) for v in table[c]]
    return pcols


def assemble(parts: list[pd.DataFrame], opt_parts: list[pd.DataFrame], provenance: dict[str, str]) -> pd.DataFrame:
    """Concatenate, join OPT, order rows and columns deterministically, add provenance."""
    table = join_opt(
        pd.concat(parts, ignore_index=True), pd.concat(opt_parts, ignore_index=True) if opt_parts else pd.DataFrame()
    )
    pcols = parameter_columns(table)
    keys = IDENTITY + pcols
    order = table.astype({c: str for c in keys}).sort_values(keys, kind="stable").index
    table = table.loc[order].reset_index(drop=True)
    if {"status", "objective", "algorithm"} <= set(table.columns):  # run rows (not a bare OPT join)
        table["instance_tied"] = tied_instances(table)
    for k, v in provenance.items():
        table[k] = v
    front = [
        "experiment",
        "family",
        "instance",
        "instance_index",
        "n_jobs",
        "m",
        "algorithm",
        "problem",
        "model",
        "rule",
        "eps",
        "seed",
        *pcols,
    ]
    return table[front + [c for c in table.columns if c not in front]]
