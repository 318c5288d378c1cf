"""Random of the two least loaded: baseline B12 of ``docs/models/rejection-model.md`` §7.

Each job goes to a uniformly random one of the two least-loaded machines of its eligible set
(by (load, index); the only one if it has one). Nothing is rejected. One coin per arrival from
the run's seeded generator (numpy PCG64), so a run is reproducible and the numba fast path
reads the same coins as the step path.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class RandomTwo(OnlineAlgorithm):
    name = "random-two"
    problem = "load"
    model = "plain"
    rule_label = "R"
    summary = "a random one of the two least-loaded machines of S_j"
    bound = "none (sanity baseline)"
    cites = ""
    section = ""
    reference = "docs/models/rejection-model.md §7 B12 (sanity baseline)"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.load = np.zeros(self.m)
        self.rng = np.random.default_rng(self.seed)

    def on_arrival(self, job: JobView, view) -> int:
        coin = self.rng.random()
        ranked = sorted(job.eligible.tolist(), key=lambda i: (self.load[i], i))[:2]
        i = ranked[0] if len(ranked) == 1 or coin < 0.5 else ranked[1]
        self.load[i] += job.size
        return i

    def dispatch_all(self, size, indptr, indices, order):
        coins = np.random.default_rng(self.seed).random(order.shape[0])
        return random_two_kernel(size, indptr, indices, order, self.m, coins)


@compiled
def random_two_kernel(size, indptr, indices, order, m, coins):
    """B12: one of the two least-loaded eligible machines, the second when ``coins[pos]`` ≥ ½
    (the coins are drawn by the caller, one per arrival, so both paths see the same ones)."""
    n = size.shape[0]
    load = np.zeros(m, dtype=np.float64)
    machine = np.empty(n, dtype=np.int64)
    for pos in range(order.shape[0]):
        j = order[pos]
        a, b = -1, -1  # best, second best by (load, index)
        for q in range(indptr[j], indptr[j + 1]):
            i = indices[q]
            if a < 0 or load[i] < load[a] or (load[i] == load[a] and i < a):
                b = a
                a = i
            elif b < 0 or load[i] < load[b] or (load[i] == load[b] and i < b):
                b = i
        i = a if (b < 0 or coins[pos] < 0.5) else b
        machine[j] = i
        load[i] += size[j]
    return machine
