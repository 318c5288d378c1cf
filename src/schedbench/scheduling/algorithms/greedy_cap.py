"""Greedy with an immediate-reject cap: baseline B2 of ``docs/models/rejection-model.md`` §7.

Least-loaded eligible machine (ties to the lowest index); the job is rejected on arrival when
the chosen machine's load would exceed κ·T — and only if the rejection budget allows it
(ε·arrivals so far; otherwise it is accepted and counted in ``guard_fires``). The natural
immediate-dispatch, immediate-reject baseline: the LB-B adversary (Thm 8.2, docs/models/rejection-model.md §6.2) forces
it to an unbounded ratio. T = T* (``oracle="opt"``) or 2^⌈log₂ LB(t)⌉ with the trivial prefix
bound LB(t) = max(p_max, ⌈Σp/m⌉) (``oracle="trivial-lb"``, docs/models/rejection-model.md §2.3 (a) with a weaker bound).
κ is our parameter (the spec gives none): default 2.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling.algorithms._guard import guarded_reject
from schedbench.scheduling.algorithms._oracles import TrivialPrefixBound
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.algorithms.greedy import least_loaded
from schedbench.scheduling.budget import Budget
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class GreedyCap(OnlineAlgorithm):
    name = "greedy-cap"
    problem = "load"
    model = "rejection"
    rule_label = "R"
    needs_opt = True
    parameters = {
        "kappa": Param(2.0, doc="cap multiplier κ > 0: reject when load + p_j > κ·T"),
        "oracle": Param("opt", ("opt", "trivial-lb"), "opt: T = T*; trivial-lb: T = 2^⌈log₂ max(p_max, ⌈Σp/m⌉)⌉"),
    }
    summary = "greedy; reject on arrival when load + p > κ·T and the budget allows"
    bound = "none: defeated by LB-B"
    cites = ""
    section = ""
    reference = "docs/models/rejection-model.md §7 B2 (immediate-reject greedy)"

    @classmethod
    def check_params(cls, params):
        cls._positive_number(params, "kappa")

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.load = np.zeros(self.m)
        self.bound = TrivialPrefixBound(self.m) if self.params["oracle"] == "trivial-lb" else None
        self.T = float(self.opt) if self.bound is None else 1.0
        self.budget = Budget(self.eps)  # by count (LoadBalancing)
        self.counters = {"guard_fires": 0}

    def on_arrival(self, job: JobView, view) -> int:
        self.budget.arrive()
        if self.bound is not None:
            self.T = self.bound.add(job.size)
        loads = self.load[job.eligible]
        i = int(job.eligible[loads == loads.min()].min())
        if self.load[i] + job.size > self.params["kappa"] * self.T:
            if self.budget.take():
                return REJECT
            self.counters["guard_fires"] += 1
        self.load[i] += job.size
        return i

    def dispatch_all(self, size, indptr, indices, order):
        if self.bound is not None:
            return None
        machine, fires = greedy_cap_kernel(
            size, indptr, indices, order, self.m, float(self.params["kappa"] * self.T), self.eps, True
        )
        self.counters["guard_fires"] = int(fires)
        return machine


@compiled
def greedy_cap_kernel(size, indptr, indices, order, m, cap, eps, guard):
    """B2: least loaded; reject on arrival when load + p_j > cap, if the budget allows (with
    ``guard``; without it, reject regardless). Returns (machine, guard fires)."""
    n = size.shape[0]
    load = np.zeros(m, dtype=np.float64)
    machine = np.empty(n, dtype=np.int64)
    rejected = 0
    fires = 0
    for pos in range(order.shape[0]):
        j = order[pos]
        i = least_loaded(load, indices, indptr[j], indptr[j + 1])
        if load[i] + size[j] > cap:
            reject, rejected, fires = guarded_reject(guard, rejected, fires, pos, eps)
            if reject:
                machine[j] = -1
                continue
        machine[j] = i
        load[i] += size[j]
    return machine, fires
