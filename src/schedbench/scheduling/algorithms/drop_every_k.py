"""Speed augmentation simulated by rejection: baseline B8 of ``docs/models/rejection-model.md``
§7 ("simulate speed augmentation by dropping every (1/ε)-th job" [Q], paper overview).

Least-loaded dispatch (ties to the lowest index); each machine rejects, on arrival, every
k-th job routed to it (the k-th, 2k-th, ...), k = ⌈1/ε⌉. Machine i rejects exactly ⌊n_i/k⌋ of
the n_i jobs routed to it, so at every prefix the rejections are ≤ Σ n_i/k ≤ ε·arrivals: the
budget holds by construction.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.scheduling.algorithms._drop_every_k import DropEveryKRule
from schedbench.scheduling.algorithms.base import JobView
from schedbench.scheduling.algorithms.greedy import least_loaded
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class DropEveryK(DropEveryKRule):
    name = "drop-every-k"
    problem = "load"
    summary = "greedy; each machine rejects every k-th job routed to it, k = ⌈1/ε⌉"
    reference = "Roy Choudhury et al. SODA 2015, overview; docs/models/rejection-model.md §7 B8"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.load = np.zeros(self.m)

    def on_arrival(self, job: JobView, view) -> int:
        loads = self.load[job.eligible]
        i = int(job.eligible[loads == loads.min()].min())
        if self.drops(i):
            return REJECT
        self.load[i] += job.size
        return i

    def dispatch_all(self, size, indptr, indices, order):
        return drop_every_k_kernel(size, indptr, indices, order, self.m, self.k)


@compiled
def drop_every_k_kernel(size, indptr, indices, order, m, k):
    """B8: least loaded; each machine rejects every k-th job routed to it (k-th, 2k-th, ...)."""
    n = size.shape[0]
    load = np.zeros(m, dtype=np.float64)
    routed = np.zeros(m, dtype=np.int64)
    machine = np.empty(n, dtype=np.int64)
    for pos in range(order.shape[0]):
        j = order[pos]
        i = least_loaded(load, indices, indptr[j], indptr[j + 1])
        routed[i] += 1
        if routed[i] % k == 0:
            machine[j] = -1
        else:
            machine[j] = i
            load[i] += size[j]
    return machine
