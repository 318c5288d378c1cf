"""WtdMaxFlowTime with rejection, algorithm A: paper §6.2 (Roy Choudhury, Das, Garg, Kumar,
SODA 2015), rule of ``docs/models/rejection-model.md`` §4.1–4.2 (defaults §10).

* Classes c(j) = (a, b): p̂ = 2^a ≥ p_j (a = ⌈log₂ p_j⌉), ŵ = 2^b ≤ w_j (b = ⌊log₂ w_j⌋), w the
  run's flow weight (w_flow for WtdMaxFlowTime, 1 for MaxFlowTime). Each machine keeps one FIFO
  queue per class; load = A's remaining processing of the queue.
* Dispatch: the eligible machine with the least load of the job's own class, ties to the lowest
  index [Q]. Reject on arrival if that load + p_j > α·T/2^b [Q: "rejection when a queue exceeds
  its limit"; arrival-time form R, §10.10]. Immediate dispatch, immediate reject.
* Processing, each slot and machine: the nonempty class maximising load·2^b/2^a [Q] (ties:
  larger b, then smaller a [R]), the head of its FIFO queue (FIFO inside a class, §10.7).
* ``alpha``: α, default None → 1/ε (§10.1). ``oracle``: ``"opt"`` T = T* (the paper's
  assumption); ``"prefix-lb"`` T(t) = 2^⌈log₂ LB(t)⌉ with LB(t) = max_j w_j·p_j over the jobs
  arrived so far, the job being decided included (§4.5 (a) without its migratory-LP term), so
  limits only grow.

A's flow time is not bounded by itself (it is the background algorithm of B, ``wmft-B``); the
budget ε·(arrived weight) is the property the paper proves for T ≥ T* [Q]. The simulation is
event driven (see :mod:`schedbench.scheduling.algorithms._classes`): a machine is re-decided at
arrivals, completions, and the slot at which its running class's priority falls below the next.
"""

from __future__ import annotations

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms._classes import ORACLES, ClassRule
from schedbench.scheduling.algorithms.base import JobView, SlotPlan
from schedbench.scheduling.registry import register_algorithm

__all__ = ["WmftA"]


@register_algorithm
class WmftA(ClassRule):
    """Algorithm A (§4.2): per-class queues, own-class least load, queue limit α·T/2^b, max load·2^b/2^a."""

    name = "wmft-A"
    problem = "wtdmaxflow"
    problems = ("maxflow",)
    parameters = {
        "alpha": Param(None, None, "queue limit α·T/2^b; None: α = 1/ε (docs/models/rejection-model.md §10.1)"),
        "oracle": Param(
            "opt",
            ORACLES,
            "opt: T = T* [Q assumption]; prefix-lb: T(t) = 2^⌈log₂ max_j w_j p_j⌉ "
            "over the prefix (docs/models/rejection-model.md §4.5 (a), no LP term) [R]",
        ),
    }
    summary = "per-class queues; own-class least load; queue limit α·T/2^b"
    bound = "none alone (the base of B)"
    cites = "cdgk"
    section = "§6.2"
    reference = "Roy Choudhury et al. SODA 2015 §6.2 (algorithm A); docs/models/rejection-model.md §4.1–4.2, §4.5, §10"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.front = [-1] * self.m  # the job last put first on each machine

    def on_arrival(self, job: JobView, view) -> int:
        return self.a_dispatch(job, view)

    def on_slot(self, view) -> SlotPlan | None:
        t = view.time
        changed = self.a_changed(t)
        plan = None
        head, front = self.sim.head, self.front
        for i in changed:
            h = head[i]
            if h >= 0 and h != front[i]:
                if plan is None:
                    plan = SlotPlan()
                plan.priority[i] = (h,)
                front[i] = h
        wake = self.wake.ask(t, self.sim.next_event())
        if wake is not None:
            if plan is None:
                plan = SlotPlan()
            plan.wake_at = wake
        return plan
