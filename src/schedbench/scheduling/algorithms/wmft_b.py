"""WtdMaxFlowTime with rejection, algorithm B: paper §6.2 (Roy Choudhury, Das, Garg, Kumar,
SODA 2015), rule of ``docs/models/rejection-model.md`` §4.3 (defaults §10).

* A (``wmft-A``, §4.2) runs in the background, simulated here at speed 1 on the same arrivals;
  B uses A's dispatch and rejects, at arrival, exactly the jobs A rejects [R].
* Timeout [Q/R]: a job j alive in B (dispatched, not completed, not rejected) is rejected at the
  first slot t with t − r_j ≥ c·T/w_j (waiting-time test, §10.9), even if partly processed
  (late rejection; the validator reports the wasted work).
* Processing, each slot and machine i [Q/R]: let j_A be the job A processes on i. If B's alive
  jobs on i include one with density ≥ D·dens(j_A), run the densest such job; else run j_A if it
  is alive in B; else (A idle, or j_A completed or timed out in B) run the densest alive job
  (§10.8). Density dens(j) = ŵ/p̂ = 2^{b−a} (rounded values, §10.6); ties among the densest:
  earliest r_j + c·T/w_j, then job id.
* Parameters: ``alpha`` (None → 1/ε), ``D`` (None → 1/ε), ``c``: a rule ``"1/eps"``,
  ``"1/eps2"``, ``"1/eps4"`` or a number > 0; default ``"1/eps4"``, the theory-faithful value
  (the O(1/ε⁴) ratio corresponds to a timeout Θ(1/ε⁴), §4.3), with the others for the
  sweep of §10.1. ``oracle`` as A: ``"opt"`` (T = T*) or ``"prefix-lb"`` (T(t) = 2^⌈log₂ max_j
  w_j p_j⌉ over the prefix; timeouts use the current T, so they only move later).

Guarantee (by the timeout rule): a job still alive at slot t has t − r_j < c·T/w_j and finishes
at t + 1 at the latest if processed then, so every completed job has F_j < c·T/w_j + 1, i.e.
w_j·F_j < c·T + w_j ≤ (c + 1)·OPT with T = T* (w_j ≤ w_j·p_j ≤ OPT). The budget is the paper's
claim for T ≥ T* with its (unknown) constants; with the defaults it is reported, not enforced.
"""

from __future__ import annotations

import heapq

from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling.algorithms._classes import ORACLES, ClassRule, timeout_slot
from schedbench.scheduling.algorithms._oracles import pow2_at_least
from schedbench.scheduling.algorithms.base import JobView, SlotPlan
from schedbench.scheduling.budget import ceil_log2_signed
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm

__all__ = ["WmftB", "C_RULES"]

C_RULES = {"1/eps": 1, "1/eps2": 2, "1/eps4": 4, "1/eps6": 6}  # c = 1/ε^k


@register_algorithm
class WmftB(ClassRule):
    """Algorithm B (§4.3): A in the background, density override by D, timeout c·T/w_j."""

    name = "wmft-B"
    problem = "wtdmaxflow"
    problems = ("maxflow",)
    late_reject = True
    runs_b = True
    c_rules = ("1/eps", "1/eps2", "1/eps4")
    parameters = {
        "alpha": Param(None, None, "A's queue limit α·T/2^b; None: α = 1/ε (docs/models/rejection-model.md §10.1)"),
        "D": Param(None, None, "'much higher density' factor; None: D = 1/ε (docs/models/rejection-model.md §10.1)"),
        "c": Param(
            "1/eps4", None, "timeout c·T/w_j: '1/eps', '1/eps2', '1/eps4' (theory-faithful, default) or a number > 0"
        ),
        "oracle": Param(
            "opt",
            ORACLES,
            "opt: T = T* [Q assumption]; prefix-lb: T(t) = 2^⌈log₂ max_j w_j p_j⌉ "
            "over the prefix (docs/models/rejection-model.md §4.5 (a), no LP term) [R]",
        ),
    }
    summary = "A in the background; density override; timeout c·T/w"
    bound = "O(1/ε⁴)"
    cites = "cdgk"
    section = "§6.2"
    reference = "Roy Choudhury et al. SODA 2015 §6.2 (algorithm B); docs/models/rejection-model.md §4.3, §4.5, §10"
    by_reject = False  # B_gen (gwmft): density by the budget weight w^r instead of the flow weight
    no_hopeless = False  # B_gen (gwmft): no preemption of a running job for a hopeless one

    # ------------------------------------------------------------------ parameters
    @classmethod
    def check_params(cls, params):
        super().check_params(params)
        c = params["c"]
        if isinstance(c, str):
            if c not in cls.c_rules:
                raise ParameterError(
                    f"algorithm {cls.name!r}: parameter 'c' must be one of {list(cls.c_rules)} "
                    f"or a number > 0, got {c!r}"
                )
        else:
            cls._positive_number(params, "c")

    @classmethod
    def c_value(cls, eps: float, params) -> float:
        c = params["c"]
        return float(eps) ** -C_RULES[c] if isinstance(c, str) else float(c)

    @classmethod
    def ratio_bound(cls, eps, params, opt=None):
        """w_j F_j < c·T + w_j for every completed job, w_j ≤ OPT: (c·T + OPT)/OPT with T = T*
        (oracle opt: c + 1); with prefix-lb T ≤ 2^⌈log₂ OPT⌉ (≤ 2·OPT when OPT is not given)."""
        if eps is None:
            return None
        c = cls.c_value(eps, params)
        if params.get("oracle", "opt") == "opt":
            return c + 1.0
        if opt is None or not opt > 0:
            return 2.0 * c + 1.0
        return c * pow2_at_least(float(opt)) / float(opt) + 1.0

    def compiled_run(self, inst, order):
        """The whole run in one call (:func:`~._class_kernels.run_class_rule`), every
        parameter; None only past :data:`~._classes.MAX_CLASS_CELLS`."""
        from schedbench.scheduling.algorithms._class_kernels import run_class_rule

        return run_class_rule(self, inst, order)

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.c = type(self).c_value(self.eps, self.params)
        D = self.params["D"]
        D = 1.0 / self.eps if D is None else float(D)
        self.D = D
        self.dshift = ceil_log2_signed(D)  # dens ≥ D·dens' ⟺ exponent ≥ exponent' + dshift
        self.alive: dict[int, int] = {}  # B-alive job -> machine
        self.brem: dict[int, int] = {}
        self.size: dict[int, int] = {}
        self.rel: dict[int, int] = {}
        self.dexp: dict[int, int] = {}
        self.dheap: list[list[tuple]] = [[] for _ in range(self.m)]  # (−density exponent, r + cT/w, id)
        self.brun = [-1] * self.m
        self.bsince = [0] * self.m
        self.bver = [0] * self.m
        self.bevents: list[tuple[int, int, int]] = []  # (slot, machine, version): B's running job completes
        self.timeouts: list[tuple[int, int]] = []  # (slot, job)
        self.bdirty: set[int] = set()
        self.counters["timeouts"] = 0

    def density_exponent(self, c: tuple) -> int:
        """log₂ of ŵ/p̂ = b − a (docs/models/rejection-model.md §4.3)."""
        return c[1] - c[0]

    def timeout_of(self, j: int) -> int:
        return timeout_slot(self.rel[j], self.c * self.T / self.wflow[j])

    # ------------------------------------------------------------------ arrivals
    def on_arrival(self, job: JobView, view) -> int:
        i = self.a_dispatch(job, view)
        if i == REJECT:
            return REJECT
        j = job.id
        self.alive[j] = i
        self.brem[j] = self.size[j] = job.size
        self.rel[j] = job.release
        d = self.dexp[j] = self.density_exponent(self.sim.cls[j])
        heapq.heappush(self.dheap[i], (-d, job.release + self.c * self.T / self.wflow[j], j))
        heapq.heappush(self.timeouts, (self.timeout_of(j), j))
        self.bdirty.add(i)
        return i

    # ------------------------------------------------------------------ slots
    def bsync(self, i: int, t: int) -> None:
        """B's processing on machine i up to slot t (its running job since bsince[i])."""
        j = self.brun[i]
        dt = t - self.bsince[i]
        self.bsince[i] = t
        if j < 0 or dt <= 0:
            return
        r = self.brem[j] - dt
        if r < 0:
            raise RuntimeError(f"{self.name}: B's simulation missed a completion on machine {i} (slot {t})")
        self.brem[j] = r
        if r == 0:
            del self.alive[j]
            self.brun[i] = -1

    def on_slot(self, view) -> SlotPlan | None:
        t = view.time
        plan = None
        bdirty = self.bdirty
        bdirty.update(self.a_changed(t))  # A's choice changed on these machines
        ev, bver = self.bevents, self.bver
        while ev and ev[0][0] <= t:
            _, i, v = heapq.heappop(ev)
            if v == bver[i]:
                bdirty.add(i)
        to, alive = self.timeouts, self.alive
        while to and to[0][0] <= t:
            _, j = heapq.heappop(to)
            if j not in alive:
                continue
            if self.prefix:  # T may have grown since the timeout was computed: the timeout moves later
                s = self.timeout_of(j)
                if s > t:
                    heapq.heappush(to, (s, j))
                    continue
            i = alive[j]
            self.bsync(i, t)
            if j not in alive:
                continue  # completed at the end of the last slot
            del alive[j]
            if self.brun[i] == j:
                self.brun[i] = -1
            self.counters["timeouts"] += 1
            if plan is None:
                plan = SlotPlan(reject=[])
            plan.reject.append(j)
            bdirty.add(i)
        if bdirty:
            for i in sorted(bdirty):
                pick = self.b_choose(i, t)
                if pick >= 0:
                    if plan is None:
                        plan = SlotPlan()
                    plan.priority[i] = (pick,)
            bdirty.clear()
        nxt = self.sim.next_event()
        while ev and ev[0][2] != bver[ev[0][1]]:
            heapq.heappop(ev)
        if ev and (nxt is None or ev[0][0] < nxt):
            nxt = ev[0][0]
        while to and to[0][1] not in alive:
            heapq.heappop(to)
        if to and (nxt is None or to[0][0] < nxt):
            nxt = to[0][0]
        wake = self.wake.ask(t, nxt)
        if wake is not None:
            if plan is None:
                plan = SlotPlan()
            plan.wake_at = wake
        return plan

    def b_choose(self, i: int, t: int) -> int:
        """B's job on machine i from slot t (docs/models/rejection-model.md §4.3); −1 when nothing is alive. Returns the
        job to put first when it differs from the one running, else −1 (no reorder needed)."""
        self.bsync(i, t)
        alive = self.alive
        heap = self.dheap[i]
        while heap and heap[0][2] not in alive:
            heapq.heappop(heap)
        top = heap[0][2] if heap else -1
        ja = self.sim.head[i]
        if ja >= 0 and top >= 0 and self.dexp[top] < self.dexp[ja] + self.dshift and ja in alive:
            pick = ja
        else:
            pick = top
        pick = self.keep_running(i, t, pick)
        self.bver[i] += 1
        prev = self.brun[i]
        self.brun[i] = pick
        if pick < 0:
            return -1
        heapq.heappush(self.bevents, (t + self.brem[pick], i, self.bver[i]))
        return pick if pick != prev else -1

    def keep_running(self, i: int, t: int, pick: int) -> int:
        """Hook for variants that refuse some preemptions (gwmft); B runs ``pick``."""
        return pick
