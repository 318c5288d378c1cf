"""IMD, immediate dispatch with per-class cumulative volumes (Avrahami–Azar, SPAA 2003 /
Algorithmica 47(3) 2007): baseline B6 of ``docs/models/rejection-model.md`` §7, speed 1+ε.

Dispatch: a job of size p is in class k = ⌊log₂ p⌋; it goes at once to the eligible machine
with the least *cumulative* volume of class-k jobs ever assigned to it (completed jobs still
count), ties to the lowest index — the spec's restricted-assignment adaptation (min over S_j)
of a rule recalled from memory [R]. Processing: SRPT per machine, preemptive, ties by job id
(smaller first: the earlier arrival). Nothing is rejected; the engine
applies speed 1+ε (ε = 0: the speed-1 reference row).

No bound is claimed for maximum flow time (the known guarantees are for total flow and the
ℓ_p norms, p < ∞).

Implementation: a machine is reordered only in a slot where jobs were dispatched to it. Between
two such slots only the job at its head runs (completions do not change SRPT's order), so the
remaining work of every other queued job is already known; only the head's is read.
Remaining work is compared on a grid of 2^-20 units (:func:`~schedbench.scheduling.machines.snap_work`),
so that two jobs with the same remaining work in exact arithmetic tie (then the earlier arrival
first) whatever the last bits of their floats at a fractional speed.

Compiled path: :func:`imd_rule` on the machine core (:mod:`~schedbench.scheduling.machines`),
SRPT machines.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms.base import WEIGHTED_FLOW_PROBLEMS, JobView, OnlineAlgorithm, SlotPlan
from schedbench.scheduling.budget import floor_log2
from schedbench.scheduling.registry import register_algorithm

_CLASSES = 64  # sizes are < 2^63


@register_algorithm
class Imd(OnlineAlgorithm):
    """B6: least cumulative class-k volume dispatch, SRPT per machine."""

    name = "imd"
    problem = "maxflow"
    problems = WEIGHTED_FLOW_PROBLEMS  # weight-blind: the same baseline for every flow problem
    model = "speed"
    rule_label = "R"
    summary = "least cumulative class volume (class ⌊log₂ p⌋); SRPT per machine"
    bound = "none for max flow"
    cites = "imd"
    section = ""
    reference = "Avrahami–Azar SPAA 2003 (IMD); docs/models/rejection-model.md §7 B6 (restricted-assignment adaptation)"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.volume = np.zeros((self.m, _CLASSES), dtype=np.int64)
        self.rem: dict[int, float] = {}  # remaining work, exact for every job not at a head
        self.new: dict[int, list[int]] = {}  # machine -> jobs dispatched to it in this slot

    def on_arrival(self, job: JobView, view) -> int:
        k = floor_log2(job.size)
        vol = self.volume[job.eligible, k]
        i = int(job.eligible[vol == vol.min()].min())
        self.volume[i, k] += job.size
        self.rem[job.id] = float(job.size)
        self.new.setdefault(i, []).append(job.id)
        return i

    def on_slot(self, view) -> SlotPlan | None:
        if not self.new:
            return None
        plan = SlotPlan()
        rem = self.rem
        for i, new in sorted(self.new.items()):
            q = view.queue(i)
            old = len(q) - len(new)
            if old > 0:
                rem[q[0]] = mc.snap_work(view.remaining(q[0]))  # the only job that ran since the last reorder
            elif len(new) == 1:
                continue
            order = sorted(q, key=lambda j: (rem[j], j))
            if order != list(q):
                plan.priority[i] = order
        self.new.clear()
        return plan

    def compiled_run(self, inst, order):
        return mc.run(imd_rule, inst, order, type(self).speed_for(self.eps), order_rule=mc.SRPT)


@compiled
def imd_rule(machines):
    """Least cumulative volume of the job's class ⌊log₂ p⌋ (ties to the lowest index), SRPT machines."""
    volume = np.zeros((machines.m, 64), np.int64)
    for pos in range(machines.n):
        p = np.int64(machines.size[pos])
        k = 0
        while (2 << k) <= p:
            k += 1
        i = -1
        for c in mc.eligible(machines, pos):
            if i < 0 or volume[c, k] < volume[i, k] or (volume[c, k] == volume[i, k] and c < i):
                i = c
        volume[i, k] += p
        mc.advance(machines, i, float(machines.release[pos]))
        mc.dispatch(machines, pos, i)
