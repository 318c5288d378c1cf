"""Numba building blocks shared by the fast paths of least-loaded algorithms."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def least_loaded(load: np.ndarray, indices: np.ndarray, start: int, end: int) -> int:
    """The machine of ``indices[start:end]`` with the smallest load, ties to the lowest index."""
    best = indices[start]
    best_load = load[best]
    for k in range(start + 1, end):
        i = indices[k]
        li = load[i]
        if li < best_load or (li == best_load and i < best):
            best = i
            best_load = li
    return best


@njit(cache=True)
def least_loaded_with_cap(size: np.ndarray, indptr: np.ndarray, indices: np.ndarray,
                          order: np.ndarray, m: int, cap: float) -> np.ndarray:
    """Greedy dispatch to the least-loaded eligible machine; reject (-1) if its load >= cap.

    ``cap = inf`` gives plain greedy (Azar–Naor–Rom).
    """
    n = size.shape[0]
    load = np.zeros(m, dtype=np.float64)
    machine = np.empty(n, dtype=np.int64)
    for pos in range(order.shape[0]):
        j = order[pos]
        i = least_loaded(load, indices, indptr[j], indptr[j + 1])
        if load[i] >= cap:
            machine[j] = -1
        else:
            machine[j] = i
            load[i] += size[j]
    return machine
