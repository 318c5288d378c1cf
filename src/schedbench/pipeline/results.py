"""Assemble the tidy results table from the pipeline's parts."""

from __future__ import annotations

import pandas as pd

__all__ = ["assemble", "IDENTITY"]

IDENTITY = ["experiment", "instance", "algorithm", "eps", "seed"]


def assemble(parts: list[pd.DataFrame], provenance: dict[str, str]) -> pd.DataFrame:
    """Concatenate, order rows and columns deterministically, and add provenance columns."""
    table = pd.concat(parts, ignore_index=True)
    pcols = sorted(c for c in table.columns if c.startswith("p_"))
    for c in pcols:  # parameters absent from an algorithm are None, not NaN
        table[c] = table[c].astype(object).where(table[c].notna(), None)
    keys = IDENTITY + pcols
    order = table.astype({c: str for c in keys}).sort_values(keys, kind="stable").index
    table = table.loc[order].reset_index(drop=True)
    for k, v in provenance.items():
        table[k] = v
    front = ["experiment", "family", "instance", "instance_index", "n_jobs", "m", "algorithm",
             "problem", "model", "rule", "eps", "seed", *pcols]
    return table[front + [c for c in table.columns if c not in front]]
