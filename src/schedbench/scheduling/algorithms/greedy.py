"""Greedy least-loaded dispatch (Azar, Naor, Rom, "The competitiveness of on-line assignments",
J. Algorithms 1995); baseline B1 of ``docs/models/rejection-model.md`` §7.

Each job goes to the eligible machine with the smallest current load; nothing is rejected.
Ties go to the lowest machine index (``ties="index"``, default) or to a uniformly random one
of the tied machines (``ties="random"``, seeded by the run's seed). ⌈log₂ m⌉ + 1 competitive
for restricted assignment, tight up to the +1 with either tie rule (the ANR tree, docs/models/rejection-model.md §6.6).
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class Greedy(OnlineAlgorithm):
    name = "greedy"
    problem = "load"
    model = "plain"
    rule_label = "Q"
    parameters = {
        "ties": Param("index", ("index", "random"), "index: lowest machine index; random: uniform, seeded"),
    }
    summary = "least-loaded machine of S_j, nothing rejected"
    bound = "⌈log₂ m⌉ + 1, tight"
    cites = "anr"
    section = ""
    reference = "Azar–Naor–Rom 1995; docs/models/rejection-model.md §7 B1"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.load = np.zeros(self.m, dtype=np.float64)
        self.rng = np.random.default_rng(self.seed) if self.params["ties"] == "random" else None

    def on_arrival(self, job: JobView, view) -> int:
        loads = self.load[job.eligible]
        tied = job.eligible[loads == loads.min()]
        i = int(tied.min()) if self.rng is None else int(tied[self.rng.integers(tied.size)])
        self.load[i] += job.size
        return i

    def dispatch_all(self, size, indptr, indices, order):
        if self.rng is not None:
            return None  # random ties: step path only
        return least_loaded_with_cap(size, indptr, indices, order, self.m, np.inf)


# ---------------------------------------------------------------------- compiled path
@compiled(inline="always")
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


@compiled
def least_loaded_with_cap(
    size: np.ndarray, indptr: np.ndarray, indices: np.ndarray, order: np.ndarray, m: int, cap: float
) -> np.ndarray:
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
