"""EDF that evicts: the suite's second practice policy for every flow problem (max flow, weighted
max flow, GenWtd, max stretch), **not an algorithm of the source papers**
(``docs/models/rejection-model.md`` §13).

``edf-reject`` can only turn the arriving job away, although the arriving job is seldom the one
whose removal helps: its projected flow is high because of the work queued before it. This
policy dispatches every job as ``edf`` with ``oracle="running"`` does (least remaining work,
preemptive EDF per machine, d_j = r_j + T(r_j)/w_j, T(t) = max w·p over the jobs so far, no
oracle; speed 1), then, right after the arrival, looks at the chosen machine i only:

1. the projected weighted flow of each job k queued on i, in EDF order, is
   F_k = w_k·(t − r_k + (the remaining work of k and of every job EDF runs before it)), i.e. its
   flow if nothing else arrived (later arrivals can only raise it);
2. while max_k F_k > L(t) it rejects, of the jobs at or before the worst one in EDF order, the
   job with the largest remaining work per unit of budget weight (1, w or w^r: the problem's) that
   the prefix budget (:class:`~schedbench.scheduling.budget.Budget`) still allows, and recomputes;
   it stops when no job there fits the budget (a ``guard_fires`` count);
3. L(t) = θ·T(t) (``estimate = lb``) or max(θ·T(t), the worst projection it has had to keep so
   far) (``ratchet``: once the maximum is committed at some level, work below it is not worth
   budget).

Removing a queued job of remaining work a lowers the projection of every job behind it by a; so the
rule spends budget where the machine's worst flow is made. Rejecting a started job discards its
processed part (counted as wasted work). Its speed twin is ``edf`` with ``oracle="running"`` at
speed 1+ε, as for ``edf-reject``. θ is tuned on training instances (the practice comparison); no
ratio bound is claimed. Step path only.
"""

from __future__ import annotations

import math

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms.base import JobView
from schedbench.scheduling.algorithms.edf_reject import EdfReject
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class EdfEvict(EdfReject):
    """EDF with the running estimate T(t); after each arrival, reject from the chosen machine the
    job with the most remaining work per budget weight ahead of its worst projected flow, while
    that flow exceeds L(t) and the budget allows."""

    name = "edf-evict"
    late_reject = True
    parameters = {
        "theta": Param(1.0, None, "evict while the machine's worst projected w·F > L(t) = θ·T(t); θ > 0"),
        "estimate": Param(
            "lb",
            ("lb", "ratchet"),
            "L(t): lb = θ·T(t), T(t) = max w·p so far; ratchet = max(θ·T(t), the worst projection kept so far)",
        ),
    }
    summary = "edf; after an arrival, while worst w·F > θ·T: evict the most work per budget weight ahead"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.machine = -1  # the machine of the latest arrival (after_arrival looks at it only)
        self.budget_weight: dict[int, float] = {}

    def on_arrival(self, job: JobView, view) -> int:
        self.observe(job)
        w = self.budget.weight(job)
        self.budget.arrive(w)
        self.budget_weight[job.id] = w
        t = view.time
        self.machine = self.work.pick(job.eligible, t)
        self.accept(job, self.machine, t)
        return self.machine

    def after_arrival(self, view) -> list[int]:
        i, t = self.machine, view.time
        queue = sorted(view.queue(i), key=self.key.__getitem__)  # EDF order (the engine reorders at the slot)
        left = {k: view.remaining(k) for k in queue}
        level = self.theta * self.T
        if self.ratchet:
            level = max(level, self.accepted_max)
        evicted: list[int] = []
        while True:
            worst, at = self.worst_projection(view, queue, left, t)
            if worst <= level:
                break
            victim = self.victim(queue[: at + 1], left)
            if victim is None:
                self.counters["guard_fires"] += 1
                break
            evicted.append(victim)
            queue.remove(victim)
            self.work.add(i, -left[victim], t)
        self.accepted_max = max(self.accepted_max, worst)
        return evicted

    def worst_projection(self, view, queue: list[int], left: dict[int, float], t: int) -> tuple[float, int]:
        """(max over ``queue`` of F_k, its position): F_k = w_k·(t − r_k + the remaining work up
        to and including k, over the speed), the queue in EDF order."""
        ahead, worst, at = 0.0, 0.0, -1
        for pos, k in enumerate(queue):
            ahead += left[k]
            job = view.job(k)
            flow = self._weight(job.size, job.w_flow) * (t - job.release + ahead / self.work.speed)
            if flow > worst:
                worst, at = flow, pos
        return worst, at

    def victim(self, candidates: list[int], left: dict[int, float]) -> int | None:
        """The candidate with the most remaining work per budget weight (ties: earliest in EDF
        order) whose rejection the budget allows (taken from it), or None. A job of budget weight
        0 costs nothing: it goes first."""
        weight = self.budget_weight

        def per_weight(k: int) -> float:
            return -left[k] / weight[k] if weight[k] > 0 else -math.inf

        for k in sorted(candidates, key=per_weight):
            if self.budget.take(self.budget_weight[k]):
                return k
        return None
