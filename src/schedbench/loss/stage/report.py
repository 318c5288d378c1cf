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
