"""The bipartite wing's views for the HTML report: its tables without their provenance columns."""

from __future__ import annotations

import pandas as pd

from schedbench.hall.io import PROVENANCE_COLUMNS


def bipartite_views(table: pd.DataFrame, checks: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    return table.drop(columns=[c for c in PROVENANCE_COLUMNS if c in table.columns]), checks


def report_views(tables: dict[str, pd.DataFrame]) -> dict[str, tuple[pd.DataFrame, str]]:
    """The report's tables of the bipartite wing by output name, each with its title: the groups
    and policies, and the exact checks (of ``tables["table"]``, ``tables["checks"]``)."""
    table, checks = bipartite_views(tables["table"], tables["checks"])
    return {"table": (table, "Bipartite: groups and policies"), "checks": (checks, "Bipartite: exact checks (T2)")}
