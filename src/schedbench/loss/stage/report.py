"""The loss wing's views for the HTML report: its tables without their provenance columns."""

from __future__ import annotations

import pandas as pd


def loss_views(points: pd.DataFrame, slopes: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    keep = [
        c
        for c in [
            "experiment",
            "n",
            "d",
            "alpha",
            "beta",
            "k_label",
            "k",
            "lam",
            "blocking",
            "blocking_ci_lo",
            "blocking_ci_hi",
            "exact_blocking",
            "mean_response",
            "excess_response",
            "exact_excess",
            "arrivals",
            "batches",
            "seconds",
        ]
        if c in points.columns
    ]
    return points[keep], slopes


def report_views(tables: dict[str, pd.DataFrame]) -> dict[str, tuple[pd.DataFrame, str]]:
    """The report's tables of the loss wing by output name, each with its title: the simulated
    points and the fitted slopes (of ``tables["points"]``, ``tables["slopes"]``)."""
    points, slopes = loss_views(tables["points"], tables["slopes"])
    return {"points": (points, "Loss system: simulated points"), "slopes": (slopes, "Loss system: fitted slopes")}
