"""Baseline B5 of ``docs/models/rejection-model.md`` §7: per-class least-load dispatch and the
queue-limit rejection of algorithm A (§4.2), but SRPT across all jobs of a machine — the
failing variant of the Section-4 example (§6.5, paper §6.2's motivation for the load/size rule).

* Classes (a, b) (GenWtd: (a, b, e)) with a = ⌈log₂ p⌉, b = ⌊log₂ w^f⌋, as A; loads are this
  algorithm's own remaining work per class and machine.
* Dispatch: the eligible machine with the least load of the job's own class (ties: lowest
  index); reject on arrival if that load + p_j > α·T/2^b (``alpha`` None → 1/ε).
* Processing: each machine runs the job with the least remaining work (ties: release, then job
  id), preemptively.
* ``oracle`` as A: ``"opt"`` (T = T*) or ``"prefix-lb"`` (T(t) = 2^⌈log₂ max_j w_j p_j⌉).

On the Section-4 example (ε = 1/4, T* = 2) the size-1 jobs keep landing on m1, whose size-1
queue SRPT empties at once, so m1's size-2 queue fills and every size-2 job from t = 4 on is
rejected: ≈ 1/3 of the jobs, ≈ 1/2 of the volume (A rejects none). No proven bound.

Compiled path: :func:`class_ll_srpt_rule`, the dispatch and the queue limit as a policy on the
machine core's SRPT machines (:mod:`schedbench.scheduling.machines`), which keep the per-class
loads as job groups (``group_work``); its loop counts no references (``_nrt=False``).
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms._classes import ORACLES, SrptClassQueues, class_tables
from schedbench.scheduling.algorithms.wmft_a import WmftA
from schedbench.scheduling.registry import register_algorithm

__all__ = ["ClassLlSrpt", "class_ll_srpt_rule"]


@register_algorithm
class ClassLlSrpt(WmftA):
    """B5: per-class least-load dispatch and queue limit as A, SRPT across the machine's jobs."""

    name = "class-ll-srpt"
    problem = "wtdmaxflow"
    problems = ("maxflow", "genwtd", "stretch")
    queues_class = SrptClassQueues
    overruns_budget = True  # the Section-4 example's point: it rejects past the budget
    parameters = {
        "alpha": Param(None, None, "queue limit α·T/2^b; None: α = 1/ε (as A)"),
        "oracle": Param("opt", ORACLES, "opt: T = T*; prefix-lb: T(t) = 2^⌈log₂ max_j w_j p_j⌉ over the prefix"),
    }
    summary = "A's per-class dispatch and queue limit, SRPT over all of a machine's jobs"
    bound = "none: fails on the Section-4 example"
    cites = "cdgk"
    section = "§4"
    reference = (
        "rejection-model.md §7 B5 (per-class LL + SRPT), §6.5 (Section-4 example); Roy Choudhury et al. SODA 2015 §6.2"
    )

    def compiled_run(self, inst, order):
        """The run on the machine core (:func:`class_ll_srpt_rule`); None past
        :data:`~._classes.MAX_CLASS_CELLS` (the step path). Sets A's counter as the step path."""
        tables = class_tables(self, inst, order)
        if tables is None:
            return None
        run = mc.run(class_ll_srpt_rule, inst, order, 1.0, tables.limit, order_rule=mc.SRPT, groups=tables.cls)
        self.counters["a_rejections"] = int(np.count_nonzero(run.machine < 0))
        if self.prefix and inst.n:
            self.T = float(tables.T_at[-1])
        return run


@compiled
def class_ll_srpt_rule(machines, limit):
    """Each arrival to its eligible machine with the least remaining work of its own class
    (the core's ``group_work``; ties to the lowest index), rejected when that load plus its size
    passes ``limit[pos]`` = α·T/2^b (§4.2's queue limit, :meth:`ClassQueues.offer`). The loop
    is :func:`_arrivals`, compiled without reference counting (the core's functions inlined)."""
    _arrivals(machines, limit)


@compiled(_nrt=False)
def _arrivals(machines, limit):
    group, group_work, size = machines.group, machines.group_work, machines.size
    for pos in range(machines.n):
        mc.arrive(machines, pos)
        c = group[pos]
        best, best_load = -1, 0.0
        for i in mc.eligible(machines, pos):
            load = group_work[i, c]
            if best < 0 or load < best_load:
                best, best_load = i, load
                if load == 0:
                    break
        if best_load + size[pos] <= limit[pos]:
            mc.dispatch(machines, pos, best)
