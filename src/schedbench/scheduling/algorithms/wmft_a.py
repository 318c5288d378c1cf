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

Compiled path: :func:`wmft_a_rule`, A as a policy on the machine core
(:mod:`schedbench.scheduling.machines`): FIFO machines whose job groups are the classes
(``group_work``: A's loads), the dispatch and the queue limit at arrivals, and at each of A's
events (a calendar) the class rule :func:`~._class_kernels.class_priority` putting the head of
the chosen class's queue first. The core processes, completes, traces and drains; the event
loop runs without reference counting (``_nrt=False``, the core's functions inlined into it).
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms._class_kernels import (
    NEVER,
    cal_del,
    cal_next,
    cal_set,
    cal_take,
    calendar_span,
    class_priority,
    mark,
    new_calendar,
)
from schedbench.scheduling.algorithms._classes import ORACLES, ClassRule, class_tables
from schedbench.scheduling.algorithms.base import JobView, SlotPlan
from schedbench.scheduling.registry import register_algorithm

__all__ = ["WmftA", "wmft_a_rule"]


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

    def compiled_run(self, inst, order):
        """A on the machine core (:func:`wmft_a_rule`); None past
        :data:`~._classes.MAX_CLASS_CELLS` (the step path). Sets A's counter as the step path."""
        tables = class_tables(self, inst, order)
        if tables is None:
            return None
        args = (tables.limit, tables.pw, tables.tie, calendar_span(tables.size))
        run = mc.run(wmft_a_rule, inst, order, 1.0, *args, groups=tables.cls)
        self.counters["a_rejections"] = int(np.count_nonzero(run.machine < 0))
        if self.prefix and inst.n:
            self.T = float(tables.T_at[-1])
        return run


@compiled
def wmft_a_rule(machines, limit, pw, tie, span):
    """Algorithm A on FIFO machines grouped by class (§4.2): slot by slot in event order, the
    arrivals (own-class least load ``group_work`` at the arrival's instant, ties to the lowest
    index; rejected when that load plus the size passes ``limit[pos]``; only the chosen machine
    is brought up to the instant), then every machine with an arrival or an event
    re-decided: its class by :func:`~._class_kernels.class_priority`, the head of that class's
    FIFO queue put first, its next event at that job's completion or the class crossing,
    whichever is first. Allocates A's state, then runs :func:`_a_loop`."""
    n, m = machines.n, machines.m
    qhead = np.full((m, pw.shape[0]), -1, np.int64)  # per (machine, class): A's FIFO queue
    qtail = np.full((m, pw.shape[0]), -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    head = np.full(m, -1, np.int64)  # the job each machine runs (the head of its class's queue)
    cal = new_calendar(m, span)
    dirty, dirty_list = np.zeros(m, np.bool_), np.empty(m, np.int64)
    _a_loop(machines, limit, pw, tie, qhead, qtail, nxt, head, cal, dirty, dirty_list)


@compiled(_nrt=False)
def _a_loop(machines, limit, pw, tie, qhead, qtail, nxt, head, cal, dirty, dirty_list):
    """The event loop of :func:`wmft_a_rule`: nothing allocated or reference-counted (the core's
    functions are inlined; the trace grows in a call of its own). ``qhead``/``qtail``/``nxt``:
    A's FIFO queue per (machine, class); ``head``: the job each machine runs; ``cal``: A's next
    event per machine; ``dirty``: the machines to re-decide in this slot."""
    n = machines.n
    group, gw, size, rem, release = machines.group, machines.group_work, machines.size, machines.rem, machines.release
    qlen, core_head, t_last = machines.qlen, machines.qhead, machines.t_last
    pos, tprev = 0, np.int64(-1)
    while True:
        t = release[pos] if pos < n else NEVER
        t = cal_next(cal, t, tprev)
        if t == NEVER:
            break
        tprev = t
        nd = 0
        while pos < n and release[pos] == t:
            c = group[pos]
            best, best_load = -1, 0.0
            for i in mc.eligible(machines, pos):
                load = gw[i, c]  # as of t_last[i]; the running job h alone runs until A's next event
                h = head[i]
                if load != 0 and h >= 0 and group[h] == c:
                    load -= t - t_last[i]
                if best < 0 or load < best_load:
                    best, best_load = i, load
                    if load == 0:
                        break
            if best_load + size[pos] <= limit[pos]:
                mc.advance(machines, best, float(t))
                mc.dispatch(machines, pos, best)
                if qhead[best, c] < 0:
                    qhead[best, c] = pos
                else:
                    nxt[qtail[best, c]] = pos
                qtail[best, c] = pos
                nd = mark(dirty, dirty_list, nd, best)
            pos += 1
        nd = cal_take(cal, t, dirty, dirty_list, nd)
        for q in range(nd):
            i = dirty_list[q]
            dirty[i] = False
            mc.advance(machines, i, float(t))
            h = head[i]
            if h >= 0 and rem[h] == 0.0:  # completed: off its class's queue
                qhead[i, group[h]] = nxt[h]
            c, k = class_priority(gw, i, pw, tie) if qlen[i] > 0 else (-1, NEVER)
            if c < 0:
                head[i] = -1
                cal_del(cal, i)
                continue
            h = qhead[i, c]
            head[i] = h
            if core_head[i] != h:
                mc.to_front(machines, h)
            cal_set(cal, i, t + min(np.int64(rem[h]), k), t)
