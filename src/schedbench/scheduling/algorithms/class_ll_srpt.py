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
"""

from __future__ import annotations

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms._classes import ORACLES, SrptClassQueues
from schedbench.scheduling.algorithms.wmft_a import WmftA
from schedbench.scheduling.registry import register_algorithm

__all__ = ["ClassLlSrpt"]


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
