"""Confidence intervals for the tables (the figures use seaborn's own bootstrap)."""

from __future__ import annotations

import numpy as np

__all__ = ["bootstrap_ci"]


def bootstrap_ci(values, level: float = 0.95, n_boot: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean and percentile-bootstrap CI of the mean; (mean, mean, mean) for fewer than 2 values."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return (np.nan, np.nan, np.nan)
    mean = float(x.mean())
    if x.size < 2 or np.all(x == x[0]):
        return (mean, mean, mean)
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(n_boot, x.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return (mean, float(lo), float(hi))
