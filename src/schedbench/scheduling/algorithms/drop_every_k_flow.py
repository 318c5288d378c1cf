"""Speed augmentation simulated by rejection, on the flow-time engine: baseline B8 of
``docs/models/rejection-model.md`` §7 ("simulate speed augmentation by dropping every
(1/ε)-th job" [Q], paper overview), with LL-FIFO's dispatch and order (B3).

Shortest-queue dispatch (ties to the lowest index), FIFO at speed 1; each machine rejects, on
arrival, every k-th job routed to it (k = ⌈1/ε⌉), so rejections ≤ ε·arrivals at every prefix
by construction (as ``drop-every-k`` for LoadBalancing). Compiled path:
:func:`drop_every_k_flow_rule` on the machine core (:mod:`~schedbench.scheduling.machines`).
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms._drop_every_k import DropEveryKRule
from schedbench.scheduling.algorithms._flow_rules import shortest_queue
from schedbench.scheduling.algorithms.base import JobView
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class DropEveryKFlow(DropEveryKRule):
    name = "drop-every-k-flow"
    problem = "maxflow"
    problems = ("stretch",)  # budget by count, as for maxflow
    summary = "shortest queue, FIFO; each machine rejects every k-th job routed to it"
    reference = "Roy Choudhury et al. SODA 2015, overview; docs/models/rejection-model.md §7 B8 on B3"

    def on_arrival(self, job: JobView, view) -> int:
        i = shortest_queue(view, job.eligible)
        return REJECT if self.drops(i) else i

    def compiled_run(self, inst, order):
        return mc.run(drop_every_k_flow_rule, inst, order, 1.0, self.k)


@compiled
def drop_every_k_flow_rule(machines, k):
    """Shortest queue; each machine rejects every k-th job routed to it."""
    routed = np.zeros(machines.m, np.int64)
    for pos in range(machines.n):
        mc.arrive(machines, pos)
        i = mc.shortest_queue(machines, mc.eligible(machines, pos))
        routed[i] += 1
        if routed[i] % k != 0:
            mc.dispatch(machines, pos, i)
