"""MaxFlowTime with rejection, unit jobs: paper §6.1, rule of ``docs/models/rejection-model.md``
§3 (Roy Choudhury, Das, Garg, Kumar, SODA 2015).

Send each job to the machine of its eligible set with the shortest queue (the job in service
included, ties to the lowest index); if that queue already holds Qcap = ⌈c·T/ε⌉ jobs, reject
the job on arrival. Each machine runs its queue FIFO. Immediate dispatch, immediate reject.

* ``cap_factor`` c: 1 (default, the levels-of-T* reading [Q-derived]) or 2 (the spec's
  alternative 2T/ε [U]); any number > 0.
* ``oracle="opt"`` (default): T = T*, the offline optimum [Q: the paper assumes it].
  ``oracle="prefix"``: T(t) = OPT of the prefix, exactly (§3 "Removing T*" [R]);
  ``"prefix-pow2"``: its power-of-two round-up. Caps only grow; queued jobs are unaffected.

Guarantee: FIFO, so a job joining a queue of length Q < Qcap completes Q + 1 slots later and
max flow ≤ Qcap; with T* the rejections are ≤ ε·arrivals at every prefix [Q]. With a prefix
T the flow bound still holds against OPT (T(t) ≤ OPT), the budget is not proven.

Compiled path: :func:`~schedbench.scheduling.algorithms._flow_kernels.fifo_kernel` with
``oracle="opt"``; the prefix oracles solve an offline MIP when a cap is reached, so they run on
the step path.
"""

from __future__ import annotations

import math

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms import _flow_kernels as fk
from schedbench.scheduling.algorithms._flow_rules import PrefixFlowOpt, shortest_queue
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm


def queue_cap(T: float, eps: float, cap_factor: float) -> int:
    """Qcap = ⌈c·T/ε⌉ (at least 1)."""
    return max(1, math.ceil(cap_factor * T / eps - 1e-9))


@register_algorithm
class MftUnit(OnlineAlgorithm):
    name = "mft-unit"
    problem = "maxflow"
    model = "rejection"
    rule_label = "Q"
    unit_sizes_only = True
    parameters = {
        "cap_factor": Param(1.0, None, "Qcap = ⌈cap_factor·T/ε⌉ (1: [Q-derived], 2: the 2T/ε reading [U])"),
        "oracle": Param(
            "opt",
            ("opt", "prefix", "prefix-pow2"),
            "opt: T = T* [Q]; prefix: T = OPT(prefix) [R]; prefix-pow2: its power-of-2 round-up [R]",
        ),
    }
    reference = "Roy Choudhury et al. SODA 2015 §6.1; docs/models/rejection-model.md §3"

    @classmethod
    def check_params(cls, params):
        cls._positive_number(params, "cap_factor")

    @classmethod
    def ratio_bound(cls, eps, params, opt=None):
        """⌈c·OPT/ε⌉/OPT (max flow ≤ Qcap and T ≤ OPT; T ≤ 2·OPT with prefix-pow2, so c doubles);
        c/ε + 1 when OPT is not known here."""
        c = float(params["cap_factor"]) * (2.0 if params["oracle"] == "prefix-pow2" else 1.0)
        if opt is None or not opt > 0:
            return c / eps + 1.0
        return queue_cap(float(opt), eps, c) / float(opt)

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.c = float(self.params["cap_factor"])
        oracle = self.params["oracle"]
        self.prefix = None if oracle == "opt" else PrefixFlowOpt(self.m, pow2=oracle == "prefix-pow2")
        self.T = float(self.opt) if oracle == "opt" else 1.0
        self.cap = queue_cap(self.T, self.eps, self.c)

    def on_arrival(self, job: JobView, view) -> int:
        i = shortest_queue(view, job.eligible)
        length = len(view.queue(i))
        if length >= self.cap and self.prefix is not None:
            self.T = self.prefix.refresh(view)
            self.cap = queue_cap(self.T, self.eps, self.c)
            self.counters["opt_solves"] = self.prefix.solves
        return REJECT if length >= self.cap else i

    def compiled_run(self, inst, order):
        if self.prefix is not None:
            return None  # the prefix optimum is an offline solve inside the run
        return fk.run_fifo(inst, order, 1.0, fk.SHORTEST_QUEUE, fk.QUEUE_CAP, cap=self.cap)
