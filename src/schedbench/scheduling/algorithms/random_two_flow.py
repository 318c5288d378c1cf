"""Random of the two shortest queues, FIFO: baseline B12 of ``docs/models/rejection-model.md`` §7
for MaxFlowTime (``random-two`` is its LoadBalancing version).

Each job goes to a uniformly random one of the two machines of its eligible set with the
shortest queues (by (length, index); the only one if it has one); FIFO per machine, speed 1,
nothing rejected. One coin per arrival from the run's seeded generator (numpy PCG64); the
compiled path (:func:`random_two_flow_rule`, on the machine core) draws the
same coins up front.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms._flow_rules import two_shortest_queues
from schedbench.scheduling.algorithms.base import WEIGHTED_FLOW_PROBLEMS, JobView, OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class RandomTwoFlow(OnlineAlgorithm):
    name = "random-two-flow"
    problem = "maxflow"
    problems = WEIGHTED_FLOW_PROBLEMS  # weight-blind: the same baseline for every flow problem
    model = "plain"
    rule_label = "R"
    summary = "a random one of the two shortest queues of S_j; FIFO"
    bound = "none (sanity baseline)"
    cites = ""
    section = ""
    reference = "docs/models/rejection-model.md §7 B12 (sanity baseline), FIFO"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.rng = np.random.default_rng(self.seed)

    def on_arrival(self, job: JobView, view) -> int:
        coin = self.rng.random()
        ranked = two_shortest_queues(view, job.eligible)
        return ranked[0] if len(ranked) == 1 or coin < 0.5 else ranked[1]

    def compiled_run(self, inst, order):
        coins = np.random.default_rng(self.seed).random(order.shape[0])
        return mc.run(random_two_flow_rule, inst, order, 1.0, coins)


@compiled
def random_two_flow_rule(machines, coins):
    """The two shortest queues (ties by index); the second when the arrival's coin is ≥ ½."""
    qlen = machines.qlen
    for pos in range(machines.n):
        mc.arrive(machines, pos)
        x, y = -1, -1
        for c in mc.eligible(machines, pos):
            if x < 0 or qlen[c] < qlen[x] or (qlen[c] == qlen[x] and c < x):
                y = x
                x = c
            elif y < 0 or qlen[c] < qlen[y] or (qlen[c] == qlen[y] and c < y):
                y = c
        mc.dispatch(machines, pos, x if (y < 0 or coins[pos] < 0.5) else y)
