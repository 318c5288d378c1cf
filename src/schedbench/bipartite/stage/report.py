"""The bipartite wing's views for the HTML report: its tables without their provenance columns."""

from __future__ import annotations

import pandas as pd

from schedbench.hall.io import PROVENANCE_COLUMNS


def bipartite_views(table: pd.DataFrame, checks: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    return table.drop(columns=[c for c in PROVENANCE_COLUMNS if c in table.columns]), checks
