"""LL-FIFO: baseline B3 of ``docs/models/rejection-model.md`` §7, the max-flow baseline at
speed 1 + ε (applied by the engine; ε = 0 is the speed-1 reference row).

Each job goes on arrival to the eligible machine with the shortest queue (``dispatch="queue"``,
the job in service included) or the least remaining work (``dispatch="work"``), ties to the
lowest index; each machine runs its jobs FIFO. Nothing is rejected.

Compiled path: :func:`ll_fifo_rule` on the machine core (:mod:`~schedbench.scheduling.machines`),
both dispatch rules, every problem.
"""

from __future__ import annotations

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms._flow_rules import least_work, shortest_queue
from schedbench.scheduling.algorithms.base import WEIGHTED_FLOW_PROBLEMS, JobView, OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class LlFifo(OnlineAlgorithm):
    name = "ll-fifo"
    problem = "maxflow"
    problems = WEIGHTED_FLOW_PROBLEMS  # weight-blind: the same baseline for every flow problem
    model = "speed"
    rule_label = "R"
    parameters = {"dispatch": Param("queue", ("queue", "work"), "least queue length or least remaining work")}
    summary = "shortest queue or least remaining work; FIFO per machine"
    bound = "none known for max flow"
    cites = ""
    section = ""
    reference = "docs/models/rejection-model.md §7 B3 (least-loaded dispatch, FIFO per machine)"

    def on_arrival(self, job: JobView, view) -> int:
        if self.params["dispatch"] == "queue":
            return shortest_queue(view, job.eligible)
        return least_work(view, job.eligible)

    def compiled_run(self, inst, order):
        by_work = self.params["dispatch"] == "work"
        return mc.run(ll_fifo_rule, inst, order, type(self).speed_for(self.eps), by_work)


@compiled
def ll_fifo_rule(machines, by_work):
    """Each arrival to the shortest queue (or the least work), FIFO machines."""
    for pos in range(machines.n):
        mc.arrive(machines, pos)
        eligible = mc.eligible(machines, pos)
        i = mc.least_work(machines, eligible) if by_work else mc.shortest_queue(machines, eligible)
        mc.dispatch(machines, pos, i)
