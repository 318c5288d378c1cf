"""LL-FIFO with tail drop: baseline B4 of ``docs/models/rejection-model.md`` §7, for general sizes.

Each job goes on arrival to the eligible machine with the least remaining work (ties to the
lowest index), which runs FIFO at speed 1. The job is rejected on arrival when the machine's
remaining work would pass the cap T/ε: ``cap_rule="exceed"`` (default, docs/models/rejection-model.md §10.2 for sized
jobs) rejects when work + p_j > c·T/ε, ``"reach"`` (the table's wording) when work ≥ c·T/ε.
T = T* (the oracle, as the paper assumes). For unit jobs with ``reach`` and c = 1 this is
MFT_UNIT measured in work instead of queue length (``mft-unit`` is the unit-job rule).

No budget guarantee is proven for sized jobs [R]: the validator reports violations.

Compiled path: :func:`ll_fifo_drop_rule` on the machine core
(:mod:`~schedbench.scheduling.machines`), both cap rules.
"""

from __future__ import annotations

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms._flow_rules import least_work
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class LlFifoDrop(OnlineAlgorithm):
    name = "ll-fifo-drop"
    problem = "maxflow"
    model = "rejection"
    rule_label = "R"
    needs_opt = True
    parameters = {
        "cap_factor": Param(1.0, None, "cap = cap_factor·T*/ε units of remaining work"),
        "cap_rule": Param("exceed", ("exceed", "reach"), "exceed: work + p_j > cap; reach: work ≥ cap"),
    }
    summary = "least remaining work, FIFO; reject when work + p > c·T*/ε"
    bound = "c/ε + 1 (budget unproven for sizes)"
    cites = ""
    section = ""
    reference = "docs/models/rejection-model.md §7 B4 (remaining-work cap for general sizes), §10.2"

    @classmethod
    def check_params(cls, params):
        cls._positive_number(params, "cap_factor")

    @classmethod
    def ratio_bound(cls, eps, params, opt=None):
        """FIFO: a job accepted finds < cap work ahead of it (exceed: ≤ cap including itself), so
        max flow ≤ cap + p_max ≤ (c/ε + 1)·T*."""
        return float(params["cap_factor"]) / eps + 1.0

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.cap = float(self.params["cap_factor"]) * float(self.opt) / self.eps

    def on_arrival(self, job: JobView, view) -> int:
        i = least_work(view, job.eligible)
        work = view.remaining_work(i)
        full = work + job.size > self.cap + 1e-9 if self.params["cap_rule"] == "exceed" else work >= self.cap - 1e-9
        return REJECT if full else i

    def compiled_run(self, inst, order):
        return mc.run(ll_fifo_drop_rule, inst, order, 1.0, self.cap, self.params["cap_rule"] == "exceed")


@compiled
def ll_fifo_drop_rule(machines, cap, exceed):
    """Least work; reject when the machine's work (plus the job's, ``exceed``) passes the cap."""
    for pos in range(machines.n):
        mc.arrive(machines, pos)
        i = mc.least_work(machines, mc.eligible(machines, pos))
        work = max(0.0, machines.work_left[i])
        if (work + machines.size[pos] > cap + 1e-9) if exceed else (work >= cap - 1e-9):
            continue  # rejected on arrival
        mc.dispatch(machines, pos, i)
