"""EDF that spends its rejection budget: the suite's own practice policy for every flow problem
(max flow, weighted max flow, GenWtd, max stretch), **not an algorithm of the source papers**
(``docs/models/rejection-model.md`` §13).

The rule is ``edf`` with ``oracle="running"`` (least remaining work, preemptive EDF per machine
with d_j = r_j + T(r_j)/w_j, T(t) = max over the jobs arrived so far of w_j·p_j, no oracle) at
speed 1, plus one rejection test on arrival: the job is rejected when its projected weighted
flow on the machine chosen for it, w_j·(A_ij + p_j) with A_ij the remaining work there that EDF
runs before it (all of it under FIFO, i.e. for max flow; jobs arriving later with earlier
deadlines are not foreseen), exceeds θ·E(t), and the
prefix budget allows it (:class:`~schedbench.scheduling.budget.Budget` with the problem's
budget weight: 1, w or w^r). A rejected job costs no work.

Its speed twin is ``edf`` with ``oracle="running"`` at speed 1+ε: the pair differs only in the
mechanism (reject or run faster), which is what the practice comparison
(:mod:`schedbench.scheduling.stage.practice`) measures. θ is tuned on training instances there;
no ratio bound is claimed. Step path only.
"""

from __future__ import annotations

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms._practice import PracticePolicy
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.algorithms.edf import Edf
from schedbench.scheduling.budget import Budget
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class EdfReject(PracticePolicy, Edf):
    """EDF with the running estimate T(t); reject on arrival when w·(A + p) > θ·E(t), within the budget."""

    name = "edf-reject"
    parameters = {
        "theta": Param(4.0, None, "reject on arrival when w·(A + p) > θ·E(t), A the work EDF runs first; θ > 0"),
        "estimate": Param(
            "lb",
            ("lb", "ratchet"),
            "E(t): lb = T(t) = max w·p so far; ratchet = max(T(t), the largest projected w·(A + p) accepted so far)",
        ),
    }
    summary = "edf, running T = max w·p; reject on arrival when w·(A + p) > θ·E(t), within the budget"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.ratchet = self.params["estimate"] == "ratchet"
        self.accepted_max = 0.0  # the largest projected weighted flow accepted so far (ratchet)
        self.budget = Budget(self.eps, get_problem(self.problem))

    def on_arrival(self, job: JobView, view) -> int:
        self.observe(job)
        w = self.budget.weight(job)
        self.budget.arrive(w)
        t = view.time
        i = self.work.pick(job.eligible, t)
        projected = self._weight(job.size, job.w_flow) * (self.work_ahead(i, job, view) + job.size)
        estimate = max(self.T, self.accepted_max) if self.ratchet else self.T
        if self.rejects(projected, estimate, w):
            return REJECT
        self.accepted_max = max(self.accepted_max, projected)
        self.accept(job, i, t)
        return i

    def work_ahead(self, i: int, job: JobView, view) -> float:
        """The remaining work on machine ``i`` that EDF runs before ``job`` (keys below its key);
        every job there when its deadlines are non-decreasing in release (max flow: FIFO)."""
        key = self.order_key(job)
        if self.tail[i] is None or key >= self.tail[i]:
            return self.work.left(i, view.time)
        return float(sum(view.remaining(k) for k in view.queue(i) if self.key[k] < key))

    # step path only: the priority kernel has no rejection rule (the base class's "none offered")
    compiled_run = OnlineAlgorithm.compiled_run
