"""Greedy least-loaded dispatch (Azar, Naor, Rom, "The competitiveness of on-line assignments",
J. Algorithms 1995); baseline B1 of ``shared/specs/rejection-model.md`` §7.

Each job goes to the eligible machine with the smallest current load, ties to the lowest
machine index; nothing is rejected. ⌈log₂ m⌉ + 1 competitive for restricted assignment, tight
up to the +1 (the ANR tree, spec §6.6).
"""

from __future__ import annotations

import numpy as np

from schedbench.scheduling.registry import register_algorithm
from schedbench.scheduling.algorithms._kernels import least_loaded_with_cap
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm


@register_algorithm
class Greedy(OnlineAlgorithm):
    name = "greedy"
    problem = "load"
    model = "plain"
    rule_label = "Q"
    reference = "Azar–Naor–Rom 1995; spec §7 B1"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.load = np.zeros(self.m, dtype=np.float64)

    def on_arrival(self, job: JobView) -> int:
        loads = self.load[job.eligible]
        i = int(job.eligible[loads == loads.min()].min())
        self.load[i] += job.size
        return i

    def dispatch_all(self, size, indptr, indices, order):
        return least_loaded_with_cap(size, indptr, indices, order, self.m, np.inf)
