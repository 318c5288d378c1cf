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
(:mod:`schedbench.scheduling.machines`): CHOSEN machines whose job groups are the classes
(``group_work``: A's loads), the dispatch and the queue limit at arrivals
(:func:`a_arrival`), and at each of A's events (a calendar) the class rule
:func:`~._classes.class_priority` choosing the head of the chosen class's queue
(:func:`a_redecide`). The core processes, completes, traces and drains; the event loop runs
without reference counting (``_nrt=False``, the core's functions inlined into it). B
(:mod:`~.wmft_b`) drives the same two functions on a record of its own.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms._classes import ORACLES, ClassRule, class_priority, class_tables
from schedbench.scheduling.algorithms.base import JobView, SlotPlan
from schedbench.scheduling.event_calendar import (
    NEVER,
    cal_del,
    cal_next,
    cal_set,
    cal_take,
    calendar_span,
    mark,
    new_calendar,
)
from schedbench.scheduling.registry import register_algorithm

__all__ = ["WmftA", "wmft_a_rule", "AState", "new_a_state", "a_next_slot", "a_arrival", "a_redecide"]


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
        run = mc.run(wmft_a_rule, inst, order, 1.0, *args, order_rule=mc.CHOSEN, groups=tables.cls)
        self.counters["a_rejections"] = int(np.count_nonzero(run.machine < 0))
        if self.prefix and inst.n:
            self.T = float(tables.T_at[-1])
        return run


#: A's own state beside the core's record (CHOSEN machines grouped by class, ``group_work``: A's
#: loads): ``limit`` (the queue limit α·T/2^b per arrival), per class ``pw`` (2^{b−a}) and
#: ``tie``; A's FIFO queue per (machine, class) (``qhead``, ``qtail``; ``nxt`` per job), the job
#: each machine runs (``head``), A's next event per machine (``cal``), the machines to re-decide
#: in this slot (``dirty``, listed in ``dirty_list``).
AState = namedtuple("AState", "limit pw tie qhead qtail nxt head cal dirty dirty_list")


@compiled
def new_a_state(machines, limit, pw, tie, span):
    """A's state for the record ``machines`` (every array allocated here, once)."""
    n, m = machines.n, machines.m
    return AState(
        limit,
        pw,
        tie,
        np.full((m, pw.shape[0]), -1, np.int64),
        np.full((m, pw.shape[0]), -1, np.int64),
        np.full(n, -1, np.int64),
        np.full(m, -1, np.int64),
        new_calendar(m, span),
        np.zeros(m, np.bool_),
        np.empty(m, np.int64),
    )


@compiled(inline="always")
def a_next_slot(machines, A, pos, tprev):
    """The next slot after ``tprev`` at which A has something to do: arrival ``pos``'s release
    or A's next event, whichever is first (``NEVER``: none)."""
    t = machines.release[pos] if pos < machines.n else NEVER
    return cal_next(A.cal, t, tprev)


@compiled(inline="always")
def a_arrival(machines, A, pos, t, nd):
    """Arrival ``pos`` at slot t: the eligible machine with the least own-class load
    (``group_work`` as of ``t_last``; the running job alone runs until A's next event), ties to
    the lowest index; rejected when that load plus the size passes ``limit[pos]``, else that
    machine takes the job at the end of its class's queue and is marked for re-decision. Returns (the machine, −1: rejected; the count of marked machines)."""
    group, gw, t_last, head = machines.group, machines.group_work, machines.t_last, A.head
    c = group[pos]
    best, best_load = -1, 0.0
    for i in mc.eligible(machines, pos):
        load = gw[i, c]
        h = head[i]
        if load != 0 and h >= 0 and group[h] == c:
            load -= t - t_last[i]
        if best < 0 or load < best_load:
            best, best_load = i, load
            if load == 0:
                break
    if best_load + machines.size[pos] > A.limit[pos]:
        return -1, nd
    mc.dispatch(machines, pos, best)  # the machine is brought up to t when A re-decides it
    if A.qhead[best, c] < 0:
        A.qhead[best, c] = pos
    else:
        A.nxt[A.qtail[best, c]] = pos
    A.qtail[best, c] = pos
    return best, mark(A.dirty, A.dirty_list, nd, best)


@compiled(inline="always")
def a_redecide(machines, A, t, nd):
    """A's decisions at slot t, after its arrivals: every machine marked (``dirty_list[:nd]``) or
    with an event at t, brought up to t, runs the class of :func:`~._classes.class_priority` (the
    head of its FIFO queue: :func:`~schedbench.scheduling.machines.choose`), its next event at that job's completion or the class
    crossing, whichever is first. Returns the count of machines re-decided (listed in
    ``dirty_list``)."""
    group, gw, rem, qlen = machines.group, machines.group_work, machines.rem, machines.qlen
    nd = cal_take(A.cal, t, A.dirty, A.dirty_list, nd)
    for q in range(nd):
        i = A.dirty_list[q]
        A.dirty[i] = False
        mc.advance(machines, i, float(t))
        h = A.head[i]
        if h >= 0 and rem[h] == 0.0:  # completed: off its class's queue
            A.qhead[i, group[h]] = A.nxt[h]
        c, k = class_priority(gw, i, A.pw, A.tie) if qlen[i] > 0 else (-1, NEVER)
        if c < 0:
            A.head[i] = -1
            mc.choose(machines, i, -1)
            cal_del(A.cal, i)
            continue
        h = A.qhead[i, c]
        A.head[i] = h
        mc.choose(machines, i, h)
        cal_set(A.cal, i, t + min(np.int64(rem[h]), k), t)
    return nd


@compiled
def wmft_a_rule(machines, limit, pw, tie, span):
    """Algorithm A on CHOSEN machines grouped by class (§4.2), slot by slot in event order: the
    arrivals (:func:`a_arrival`), then the re-decisions (:func:`a_redecide`). Allocates A's
    state, then runs :func:`_a_loop`."""
    _a_loop(machines, new_a_state(machines, limit, pw, tie, span))


@compiled(_nrt=False)
def _a_loop(machines, A):
    """The event loop of :func:`wmft_a_rule`: nothing allocated or reference-counted (the core's
    functions are inlined; the trace grows in a call of its own)."""
    n, release = machines.n, machines.release
    pos, tprev = 0, np.int64(-1)
    while True:
        t = a_next_slot(machines, A, pos, tprev)
        if t == NEVER:
            break
        tprev = t
        nd = 0
        while pos < n and release[pos] == t:
            nd = a_arrival(machines, A, pos, t, nd)[1]
            pos += 1
        a_redecide(machines, A, t, nd)
