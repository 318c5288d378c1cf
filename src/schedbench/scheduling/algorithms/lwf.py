"""LWF per machine (Longest Wait First by delay factor): the comparator B10-LWF of
``docs/models/rejection-model.md`` §7, speed 1+ε — the **known-bad** rule.

Chekuri–Im–Moseley (ToC 8, 2012) show that the greedy "modeled after LWF" is not
O(1)-competitive for maximum delay factor at any speed s ≥ 1, even for uniform-size jobs [Q];
it is run next to the B10 proxy (``ssf-edf``), which should beat it on adversarial inputs.

* dispatch as B7 (:mod:`~schedbench.scheduling.algorithms.edf`): least remaining work among the
  eligible machines, ties to the lowest index;
* each machine runs, preemptively, the job with the largest current delay factor
  (t − r_j)/S_j, S_j = T/w_j (w_j the problem's flow weight), ties by release then job id; the
  order is re-evaluated in every slot where something changes on the machine;
* nothing is rejected; the engine applies speed 1+ε.

A fixed T (``opt`` or ``none``) scales every S_j alike, so the order does not depend on it
(``oracle`` is kept for a uniform parameter grid with ``edf``); with ``running`` each job's S_j =
T(r_j)/w_j uses the estimate at its arrival (``edf``'s running maximum of w·p), which can reorder.
For MaxFlowTime with a fixed T every S_j = T and LWF is FIFO by release.

Implementation: while every job ever sent to a machine has the same S, the order is by
(r_j, id) and static (no reorder, no wake-up: MaxFlowTime's case). Otherwise the order of a
machine changes over time; it is re-sorted in each slot where jobs arrive on it, in the slot in
which its head completes, and in the first slot where some job's delay factor overtakes the
head's (a crossing of two lines in t), asking the engine for those wake-ups. This gives the
same schedule as re-sorting every machine in every slot (tested against that reference).

Compiled path: :func:`~schedbench.scheduling.algorithms._flow_kernels.lwf_kernel`, the same
re-sorts at the same slots (every problem and parameter).
"""

from __future__ import annotations

import heapq
import math


from schedbench.scheduling.algorithms import _flow_kernels as fk
from schedbench.scheduling.algorithms.base import JobView, SlotPlan
from schedbench.scheduling.algorithms.edf import Edf
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class Lwf(Edf):
    """B10-LWF: B7 dispatch; per machine, the largest (t − r_j)/S_j first (known-bad rule)."""

    name = "lwf"
    rule_label = "R"
    summary = "least remaining work; per machine the largest (t − r)/S first"
    bound = "not O(1) at any speed"
    cites = "cim"
    section = ""
    reference = (
        "Chekuri–Im–Moseley ToC 8 (2012), LWF lower bound (not O(1) at any speed); "
        "docs/models/rejection-model.md §7 B10-LWF comparator"
    )

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.S: dict[int, float] = {}
        self.rel: dict[int, int] = {}
        self.one_slack: list[float | None] = [None] * self.m  # the S of every job sent to i, or nan if mixed
        self.events: list[tuple[int, int, int]] = []  # (slot, machine, version): re-sort i at that slot
        self.version = [0] * self.m
        self.asked: set[int] = set()  # wake-up slots already asked of the engine

    def on_arrival(self, job: JobView, view) -> int:
        self.observe(job)  # oracle="running": T(t) raised before the job's slack is fixed
        t = view.time
        i = self.work.pick(job.eligible, t)
        self.work.add(i, job.size, t)
        S = self.slack(job)
        self.S[job.id], self.rel[job.id] = S, job.release
        one = self.one_slack[i]
        if one is None:
            self.one_slack[i] = S
        elif one != S:  # also when already mixed (nan)
            self.one_slack[i] = math.nan
            self.touched.add(i)
        # else one S on this machine: FIFO by (r, id), the engine's append order
        return i

    def _resort(self, i: int, view, plan: SlotPlan) -> None:
        t = view.time
        q = view.queue(i)
        if len(q) <= 1:
            return
        S, rel = self.S, self.rel
        order = sorted(q, key=lambda j: (-(t - rel[j]) / S[j], rel[j], j))
        if order != list(q):
            plan.priority[i] = order
        one = self.one_slack[i]
        if one is not None and not math.isnan(one):
            return
        # Next re-sort: the slot in which the head completes (the rest of that slot runs the
        # order sorted at its start, as if re-sorted every slot), or the first slot where
        # another job's delay factor overtakes the head's.
        h = order[0]
        nxt = math.floor(t + view.remaining(h) / view.speed + 1e-9)
        for j in order[1:]:
            if S[j] < S[h]:  # j's delay factor grows faster: the lines cross at t*
                cross = (rel[j] / S[j] - rel[h] / S[h]) / (1.0 / S[j] - 1.0 / S[h])
                nxt = min(nxt, math.ceil(cross - 1e-9))
        nxt = max(nxt, t + 1)
        self.version[i] += 1
        heapq.heappush(self.events, (nxt, i, self.version[i]))

    def on_slot(self, view) -> SlotPlan | None:
        t = view.time
        ev = self.events
        while ev and ev[0][0] <= t:
            _, i, ver = heapq.heappop(ev)
            if ver == self.version[i]:
                self.touched.add(i)
        if not self.touched:
            return None
        plan = SlotPlan()
        for i in sorted(self.touched):
            self._resort(i, view, plan)
        self.touched.clear()
        while ev and ev[0][2] != self.version[ev[0][1]]:
            heapq.heappop(ev)  # stale
        self.asked = {s for s in self.asked if s > t}
        if ev and ev[0][0] not in self.asked:
            plan.wake_at = ev[0][0]
            self.asked.add(ev[0][0])
        return plan

    def compiled_run(self, inst, order):
        return fk.run_lwf(inst, order, type(self).speed_for(self.eps), self.slacks(inst, order))
