"""Greedy that spends its rejection budget: the suite's own practice policy for LoadBalancing,
**not an algorithm of the source papers** (``docs/models/rejection-model.md`` §13).

Each job goes to its least-loaded eligible machine (ties to the lowest index), as ``greedy``;
it is rejected on arrival instead when the machine's load would pass θ·L(t), with L(t) =
max(p_max, Σp/m) over the jobs arrived so far (a lower bound on the optimum of the prefix, no
oracle and no rounding), and the prefix budget allows it (by count). Unlike ``greedy-cap``
(T* or a power of two, κ fixed) the estimate moves with every arrival and θ is tuned on
training instances by the practice comparison (:mod:`schedbench.scheduling.stage.practice`).
Its speed twin is ``greedy`` at speed 1+ε (for LoadBalancing a makespan at speed s is the load
over s). No ratio bound is claimed. Step path only.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms._practice import PracticePolicy
from schedbench.scheduling.algorithms.base import JobView
from schedbench.scheduling.budget import Budget
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class GreedyReject(PracticePolicy):
    """Greedy; reject on arrival when load + p > θ·max(p_max, Σp/m) so far, within the budget."""

    name = "greedy-reject"
    problem = "load"
    parameters = {
        "theta": Param(1.5, None, "reject on arrival when load + p > θ·L(t), L(t) = max(p_max, Σp/m) so far; θ > 0"),
    }
    summary = "greedy; reject on arrival when load + p > θ·max(p_max, Σp/m) so far, within the budget"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.load = np.zeros(self.m)
        self.total, self.pmax = 0.0, 0.0
        self.budget = Budget(self.eps)  # by count (LoadBalancing)

    def estimate(self) -> float:
        """L(t) = max(p_max, Σp/m) over the jobs arrived so far."""
        return max(self.pmax, self.total / self.m)

    def on_arrival(self, job: JobView, view) -> int:
        self.budget.arrive()
        self.total += job.size
        self.pmax = max(self.pmax, float(job.size))
        loads = self.load[job.eligible]
        i = int(job.eligible[loads == loads.min()].min())
        if self.rejects(self.load[i] + job.size, self.estimate()):
            return REJECT
        self.load[i] += job.size
        return i
