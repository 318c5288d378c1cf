"""LoadBalancing with rejection, unit sizes: paper §5, rule of ``shared/specs/rejection-model.md``
§2.1 (Roy Choudhury, Das, Garg, Kumar, SODA 2015).

Send each job to the least-loaded machine of its eligible set (ties to the lowest index); if
that machine's load has reached the cap α·T*, reject the job on arrival. Immediate dispatch,
immediate reject. Assumes the oracle T* (the offline optimum, which rejects nothing).

* ``alpha_rule="paper"`` (default): α = ⌈log₂(1/ε)⌉, the paper's choice [Q]. Its rejection
  budget is not proven at every prefix for all inputs (spec §2.1), so the validator may flag it.
* ``alpha_rule="safe"``: α = 2⌈log₂(1/ε)⌉, for which the spec proves rejections ≤ ε·arrivals
  at every prefix [R✓].

Guarantee: max load ≤ α·T* = O(log(1/ε))·T*.
"""

from __future__ import annotations

import math

import numpy as np

from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm
from schedbench.scheduling.algorithms._kernels import least_loaded_with_cap
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm, Param


def alpha_for(eps: float, alpha_rule: str) -> int:
    """α of spec §2.1 for ε in (0, 1): ⌈log₂(1/ε)⌉ (paper) or twice that (safe); at least 1."""
    alpha = max(1, math.ceil(math.log2(1.0 / eps) - 1e-12))
    return 2 * alpha if alpha_rule == "safe" else alpha


@register_algorithm
class LbUnitReject(OnlineAlgorithm):
    name = "lb-unit-reject"
    problem = "load"
    model = "rejection"
    rule_label = "Q"
    needs_opt = True
    unit_sizes_only = True
    parameters = {
        "alpha_rule": Param("paper", ("paper", "safe"),
                            "paper: α=⌈log₂(1/ε)⌉ [Q]; safe: α=2⌈log₂(1/ε)⌉ [R✓]"),
    }
    reference = "Roy Choudhury et al. SODA 2015 §5 (unit sizes); spec §2.1"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.alpha = alpha_for(self.eps, self.params["alpha_rule"])
        self.cap = self.alpha * self.opt
        self.load = np.zeros(self.m, dtype=np.float64)

    def on_arrival(self, job: JobView, view) -> int:
        loads = self.load[job.eligible]
        i = int(job.eligible[loads == loads.min()].min())
        if self.load[i] >= self.cap:
            return REJECT
        self.load[i] += job.size
        return i

    def dispatch_all(self, size, indptr, indices, order):
        return least_loaded_with_cap(size, indptr, indices, order, self.m, float(self.cap))
