"""Per-machine EDF: baseline B7 of ``docs/models/rejection-model.md`` §7, speed 1+ε.

Dispatch: each job goes at once to the eligible machine with the least remaining work (the
work left on it at the start of this slot's processing, jobs dispatched earlier in the slot
included), ties to the lowest index (docs/models/rejection-model.md §7). Processing: each machine runs its jobs
preemptively by earliest deadline d_j = r_j + T/w_j, ties by release, then job id, where w_j is
the problem's flow weight (:meth:`Problem.flow_weight_of`: 1 for MaxFlowTime). Nothing is
rejected; the engine applies speed 1+ε (ε = 0: the speed-1 reference row).

``oracle``: ``"opt"`` uses T = T* (the given offline optimum), ``"none"`` uses T = 1,
``"running"`` the online estimate T(t) = max over the jobs arrived so far of w_j·p_j (a lower
bound on the optimum of the prefix: a job alone has weighted flow ≥ w_j·p_j), read when the
job arrives, so each deadline is fixed at arrival and no oracle is needed. For
MaxFlowTime every w_j = 1, so T shifts every deadline by the same amount and the order, hence
the schedule, does not depend on T: EDF is FIFO by release (ties by arrival), the engine's
default order. For weighted problems (subclasses with another ``problem``) T sets how release
times trade against weights.

Implementation: remaining work is tracked per machine without asking the engine
(a machine is busy whenever it has work, so W_i(t) = max(0, W_i(t') − s·(t − t'))); ties are
decided with a relative tolerance of 1e-9. Deadlines are static, so a machine is reordered only
when a new job's key is below the largest key ever sent to it (never, for MaxFlowTime).

Compiled path: :func:`edf_rule` on the machine core (:mod:`~schedbench.scheduling.machines`),
machines ordered by the static keys ranked before the run (:meth:`Edf.static_keys`), every
problem and parameter.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms.base import WEIGHTED_FLOW_PROBLEMS, JobView, OnlineAlgorithm, SlotPlan
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.registry import register_algorithm

__all__ = ["Edf", "LeastWork"]

_TIE = 1e-9  # relative tolerance of remaining-work ties (floating point at fractional speeds)


class LeastWork:
    """Remaining work per machine, kept lazily: the engine's machines are work-conserving, so
    W_i at slot t is W_i(t_i) − s·(t − t_i), floored at 0, where t_i is the last update of i."""

    def __init__(self, m: int, speed: float) -> None:
        self.speed = float(speed)
        self.work = np.zeros(m, dtype=np.float64)
        self.stamp = np.zeros(m, dtype=np.float64)

    def pick(self, eligible: np.ndarray, t: int) -> int:
        """argmin over ``eligible`` of (remaining work at slot t, index)."""
        cur = np.maximum(0.0, self.work[eligible] - self.speed * (t - self.stamp[eligible]))
        best = cur.min()
        return int(eligible[cur <= best + _TIE * max(1.0, best)].min())

    def left(self, i: int, t: int) -> float:
        """W_i at slot t: the work left on machine i."""
        return max(0.0, self.work[i] - self.speed * (t - self.stamp[i]))

    def add(self, i: int, size: float, t: int) -> None:
        self.work[i] = self.left(i, t) + size
        self.stamp[i] = t


@register_algorithm
class Edf(OnlineAlgorithm):
    """B7: least-remaining-work dispatch, preemptive EDF per machine (d_j = r_j + T/w_j)."""

    name = "edf"
    problem = "maxflow"
    problems = WEIGHTED_FLOW_PROBLEMS  # deadlines r + T/w with the problem's flow weight
    model = "speed"
    rule_label = "R"
    parameters = {
        "oracle": Param(
            "opt",
            ("opt", "none", "running"),
            "opt: T = T* in d_j = r_j + T/w_j; none: T = 1; running: T = max w·p over the jobs arrived so far"
            " (same order for MaxFlowTime)",
        ),
    }
    summary = "least remaining work; preemptive EDF per machine, d = r + T/w"
    bound = "none known for max flow"
    cites = ""
    section = ""
    reference = "docs/models/rejection-model.md §7 B7 (per-machine EDF, d_j = r_j + T/w_j)"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        oracle = self.params.get("oracle", "running")
        self.running = oracle == "running"  # T(t) = max w·p so far, raised in :meth:`on_arrival`
        self.T = float(self.opt) if oracle == "opt" else (0.0 if self.running else 1.0)
        self._weight = get_problem(self.problem).flow_weight_of
        self.work = LeastWork(self.m, type(self).speed_for(self.eps))
        self.key: dict[int, tuple] = {}
        self.tail: list[tuple | None] = [None] * self.m  # largest key ever sent to each machine
        self.touched: set[int] = set()

    def slack(self, job: JobView) -> float:
        """S_j = d_j − r_j = T/w_j."""
        return self.T / self._weight(job.size, job.w_flow)

    def order_key(self, job: JobView) -> tuple:
        """The static processing key of a job (smaller runs first)."""
        return (job.release + self.slack(job), job.release, job.id)

    def observe(self, job: JobView) -> None:
        """Raise the running estimate T(t) to w_j·p_j (``oracle="running"`` only)."""
        if self.running:
            self.T = max(self.T, self._weight(job.size, job.w_flow) * job.size)

    def on_arrival(self, job: JobView, view) -> int:
        self.observe(job)
        t = view.time
        i = self.work.pick(job.eligible, t)
        self.accept(job, i, t)
        return i

    def accept(self, job: JobView, i: int, t: int) -> None:
        """Send ``job`` to machine ``i`` at slot ``t``: its work, its static key, the reorder mark."""
        self.work.add(i, job.size, t)
        k = self.order_key(job)
        self.key[job.id] = k
        tail = self.tail[i]
        if tail is None or k >= tail:
            self.tail[i] = k  # appended last by the engine: already in order
        else:
            self.touched.add(i)

    def on_slot(self, view) -> SlotPlan | None:
        if not self.touched:
            return None
        plan = SlotPlan()
        key = self.key
        for i in sorted(self.touched):
            q = view.queue(i)
            order = sorted(q, key=key.__getitem__)
            if order != list(q):
                plan.priority[i] = order
        self.touched.clear()
        return plan

    # ------------------------------------------------------------------ compiled path
    def slacks(self, inst, order) -> np.ndarray:
        """S_j = T/w_j per arrival position, with the same float operations as :meth:`slack`
        (``running``: T at each arrival, the running maximum of w·p in arrival order)."""
        w = get_problem(self.problem).flow_weights(inst)[order]
        T = np.maximum.accumulate(w * inst.size[order]) if self.running else self.T
        return T / w

    def static_keys(self, inst, order) -> tuple[np.ndarray, ...]:
        """The keys of :meth:`order_key` per arrival position, most significant first (the
        position, the engine's job id, breaks the remaining ties)."""
        release = inst.release[order]
        return (release + self.slacks(inst, order), release)

    def compiled_run(self, inst, order):
        rank = mc.static_rank(*self.static_keys(inst, order))
        return mc.run(edf_rule, inst, order, type(self).speed_for(self.eps), order_rule=mc.BY_KEY, key=rank)


@compiled
def least_work_pick(eligible, work, stamp, s, t, p):
    """:meth:`LeastWork.pick` then :meth:`LeastWork.add`, compiled (``work``, ``stamp``: its
    arrays): the eligible machine with the least remaining work at t, W_i(t) = max(0, W_i −
    s·(t − stamp_i)), ties (relative 1e-9) to the lowest index; adds the job's size p to it."""
    best = np.inf
    for c in eligible:
        w = max(0.0, work[c] - s * (t - stamp[c]))
        if w < best:
            best = w
    i = -1
    for c in eligible:
        w = max(0.0, work[c] - s * (t - stamp[c]))
        if w <= best + _TIE * max(1.0, best) and (i < 0 or c < i):
            i = c
    work[i] = max(0.0, work[i] - s * (t - stamp[i])) + p
    stamp[i] = t
    return i


@compiled
def edf_rule(machines):
    """The EDF family's least-work dispatch onto machines that run by a static key (BY_KEY)."""
    work = np.zeros(machines.m)
    stamp = np.zeros(machines.m)
    for pos in range(machines.n):
        t = float(machines.release[pos])
        i = least_work_pick(mc.eligible(machines, pos), work, stamp, machines.speed, t, machines.size[pos])
        mc.advance(machines, i, t)
        mc.dispatch(machines, pos, i)
