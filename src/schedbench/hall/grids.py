"""Parameter grids and work splits shared by the config checks and the experiment runners."""

from __future__ import annotations

import itertools
from typing import Any

__all__ = ["algorithm_grid", "batches", "balanced_chunks"]


def algorithm_grid(values: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The cartesian product of a ``{param: value or [values]}`` mapping, in a stable order."""
    values = values or {}
    keys = sorted(values)
    lists = [v if isinstance(v, list) else [v] for v in (values[k] for k in keys)]
    return [dict(zip(keys, combo)) for combo in itertools.product(*lists)]


def batches(n_instances: int, batch_size: int) -> list[list[int]]:
    """Instance indices split into consecutive batches (one Snakemake job each)."""
    return [list(range(a, min(a + batch_size, n_instances))) for a in range(0, n_instances, batch_size)]


def balanced_chunks(items: list, per_job: int, key) -> list[list]:
    """Split ``items`` into about len/per_job jobs of similar cost: sort by ``key`` (costliest
    first) and deal them round-robin. Results never depend on this split (seeds are per item)."""
    ordered = sorted(items, key=key)
    n_jobs = max(1, -(-len(items) // per_job))
    return [ordered[i::n_jobs] for i in range(n_jobs)]
