"""Parameter grids and work splits shared by the config checks and the experiment runners."""

from __future__ import annotations

import itertools
from typing import Any

__all__ = ["algorithm_grid", "GridError", "check_unique", "repeated", "batches", "balanced_chunks"]


class GridError(ValueError):
    """A grid lists a value twice (``key`` names the list): every run of it would be counted twice
    and an interval computed over copies."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def repeated(values: list) -> Any:
    """The first value of ``values`` equal to an earlier one, else None (``values`` may hold
    unhashable items; equality as Python's — 1 and 1.0 are the same value — but a bool never
    equals a number)."""
    for i, v in enumerate(values):
        if any(v == u and isinstance(v, bool) == isinstance(u, bool) for u in values[:i]):
            return v
    return None


def check_unique(values: list, key: str) -> None:
    """Raise :class:`GridError` naming ``key`` when ``values`` lists a value twice."""
    dup = repeated(values)
    if dup is not None:
        raise GridError(key, f"{key}: {dup!r} is listed twice (each value of a grid once)")


def algorithm_grid(values: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The cartesian product of a ``{param: value or [values]}`` mapping, in a stable order; a
    list with a value twice is a :class:`GridError` naming the parameter."""
    values = values or {}
    keys = sorted(values)
    lists = [v if isinstance(v, list) else [v] for v in (values[k] for k in keys)]
    for key, options in zip(keys, lists):
        check_unique(options, key)
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
