"""LoadBalancing with rejection, unit sizes: paper §5, rule of ``docs/models/rejection-model.md``
§2.1 (Roy Choudhury, Das, Garg, Kumar, SODA 2015).

Send each job to the least-loaded machine of its eligible set (ties to the lowest index); if
that machine's load has reached the cap α·T, reject the job on arrival. Immediate dispatch,
immediate reject.

* ``alpha_rule="paper"`` (default): α = ⌈log₂(1/ε)⌉, the paper's choice [Q]. Its rejection
  budget is not proven at every prefix for all inputs (rejection-model.md §2.1), so the validator may flag it.
* ``alpha_rule="safe"``: α = 2⌈log₂(1/ε)⌉, for which the spec proves rejections ≤ ε·arrivals
  at every prefix [R✓].
* ``oracle="opt"`` (default): T = T*, the offline optimum [Q: the paper assumes it].
  ``oracle="phases"`` (docs/models/rejection-model.md §2.3 (a) [R✓ for unit jobs]): T(t) = 2^⌈log₂ OPT(prefix)⌉, the
  prefix optimum kept exactly by an incremental b-matching; when T changes a new phase starts
  with fresh loads (old jobs stay). ``oracle="doubling"`` (§2.3 (b) [R]): T starts at 1; when a
  rejection would take the phase's rejections past ε·(phase arrivals), T doubles, a new phase
  starts and the job is handled there.
* ``guard="on"``: never reject past ε·(arrivals so far): accept instead and count it
  (``guard_fires``); ``"off"`` (default, docs/models/rejection-model.md §10.12): reject and let the validator report.

Guarantee (oracle T*): max load ≤ α·T* = O(log(1/ε))·T*; with phases, ≤ 2α·T_last ≤ 4α·OPT.

Compiled path (``dispatch_all``): every oracle and guard, the phases' b-matching included
(:func:`lb_unit_online_kernel`).
"""

from __future__ import annotations


import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling.algorithms._guard import guarded_reject
from schedbench.scheduling.algorithms._oracles import PrefixUnitOpt, prefix_unit_opt_pow2
from schedbench.scheduling.algorithms.base import GUARD, JobView, OnlineAlgorithm
from schedbench.scheduling.algorithms.greedy import least_loaded_with_cap
from schedbench.scheduling.algorithms.greedy_cap import greedy_cap_kernel
from schedbench.scheduling.budget import Budget, allows_nb, ceil_log2
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm


def alpha_for(eps: float, alpha_rule: str) -> int:
    """α of rejection-model.md §2.1 for ε in (0, 1): ⌈log₂(1/ε)⌉ (paper) or twice that (safe); at least 1."""
    alpha = max(1, ceil_log2(1.0 / eps))
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
        "alpha_rule": Param("paper", ("paper", "safe"), "paper: α=⌈log₂(1/ε)⌉ [Q]; safe: α=2⌈log₂(1/ε)⌉ [R✓]"),
        "oracle": Param(
            "opt",
            ("opt", "phases", "doubling"),
            "opt: T = T* [Q]; phases: T = 2^⌈log₂ OPT(prefix)⌉ [R✓]; doubling: on failure [R]",
        ),
        "guard": GUARD,
    }
    summary = "least-loaded machine of S_j; reject when it already carries α·T"
    bound = "O(log 1/ε): α·T*"
    cites = "cdgk"
    section = "§5"
    reference = "Roy Choudhury et al. SODA 2015 §5 (unit sizes); docs/models/rejection-model.md §2.1, §2.3"

    @classmethod
    def ratio_bound(cls, eps, params, opt=None):
        """α with T* (the cap), 4α with exact prefix phases (≤ 2α·T_last, T_last < 2·OPT); no
        bound for doubling [R] or when a guard may accept past the cap."""
        if params["guard"] == "on" or params["oracle"] == "doubling":
            return None
        alpha = alpha_for(eps, params["alpha_rule"])
        return float(alpha if params["oracle"] == "opt" else 4 * alpha)

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.alpha = alpha_for(self.eps, self.params["alpha_rule"])
        self.load = np.zeros(self.m, dtype=np.float64)
        self.T = float(self.opt) if self.params["oracle"] == "opt" else 1.0
        self.prefix = PrefixUnitOpt(self.m) if self.params["oracle"] == "phases" else None
        self.budget = Budget(self.eps)  # the run's, by count (LoadBalancing)
        self.phase = Budget(self.eps)  # the current phase's (doubling)
        self.counters = {"guard_fires": 0, "phases": 1}

    def _new_phase(self, T: float) -> None:
        self.T = T
        self.load[:] = 0.0
        self.phase = Budget(self.eps)
        self.counters["phases"] += 1

    def on_arrival(self, job: JobView, view) -> int:
        self.budget.arrive()
        if self.prefix is not None:
            T = float(self.prefix.add(job.id, job.eligible))
            if T != self.T:
                self._new_phase(T)
        self.phase.arrive()
        while True:
            loads = self.load[job.eligible]
            i = int(job.eligible[loads == loads.min()].min())
            if self.load[i] < self.alpha * self.T:
                break
            if self.params["oracle"] == "doubling" and not self.phase.allows():
                self._new_phase(2 * self.T)  # the failure proves T < OPT(phase); re-handle the job
                self.phase.arrive()
                continue
            if self.params["guard"] == "on" and not self.budget.allows():
                self.counters["guard_fires"] += 1
                break
            self.budget.reject()
            self.phase.reject()
            return REJECT
        self.load[i] += job.size
        return i

    def dispatch_all(self, size, indptr, indices, order):
        if self.params["oracle"] != "opt":  # the online oracles, compiled (the b-matching too)
            mode = PHASES if self.params["oracle"] == "phases" else DOUBLING
            machine, fires, phases = lb_unit_online_kernel(
                size, indptr, indices, order, self.m, float(self.alpha), self.eps, self.params["guard"] == "on", mode
            )
            self.counters["guard_fires"] = int(fires)
            self.counters["phases"] = int(phases)
            return machine
        cap = float(self.alpha * self.T)
        if self.params["guard"] == "off":
            return least_loaded_with_cap(size, indptr, indices, order, self.m, cap)
        # unit sizes, integer cap: "load >= cap" is "load + 1 > cap"
        machine, fires = greedy_cap_kernel(size, indptr, indices, order, self.m, cap, self.eps, True)
        self.counters["guard_fires"] = int(fires)
        return machine


PHASES, DOUBLING = 1, 2  # the online stand-ins for T* of lb_unit_online_kernel


@compiled
def lb_unit_online_kernel(size, indptr, indices, order, m, alpha, eps, guard, mode):
    """LbUnitReject without T* (rejection-model.md §2.3): ``mode`` PHASES (T = the power of two
    ≥ OPT(prefix), kept by an incremental b-matching, :func:`prefix_unit_opt_pow2`; a change of
    T starts a phase with fresh loads) or DOUBLING (T from 1, doubled when a rejection would
    pass ε·(phase arrivals)). Least-loaded dispatch (ties to the lowest index), reject at
    load ≥ α·T, the optional budget guard as the step path. Returns (machine, guard fires,
    phases)."""
    n = order.shape[0]
    machine = np.full(size.shape[0], -1, np.int64)
    load = np.zeros(m, np.float64)
    if mode == PHASES:
        t_prefix = prefix_unit_opt_pow2(indptr, indices, order, m)
    else:
        t_prefix = np.empty(0, np.int64)
    T = 1.0
    rejected = 0
    ph_arrived = 0
    ph_rejected = 0
    fires = 0
    phases = 1
    for pos in range(n):
        o = order[pos]
        if mode == PHASES and float(t_prefix[pos]) != T:
            T = float(t_prefix[pos])
            load[:] = 0.0
            ph_arrived = 0
            ph_rejected = 0
            phases += 1
        ph_arrived += 1
        while True:
            i = -1
            for k in range(indptr[o], indptr[o + 1]):
                c = indices[k]
                if i < 0 or load[c] < load[i] or (load[c] == load[i] and c < i):
                    i = c
            if load[i] < alpha * T:
                break
            if mode == DOUBLING and not allows_nb(ph_rejected, 1, ph_arrived, eps):
                T = 2.0 * T
                load[:] = 0.0
                ph_arrived = 1
                ph_rejected = 0
                phases += 1
                continue
            reject, rejected, fires = guarded_reject(guard, rejected, fires, pos, eps)
            if not reject:
                break
            ph_rejected += 1
            i = -1
            break
        if i >= 0:
            machine[o] = i
            load[i] += size[o]
    return machine, fires, phases
