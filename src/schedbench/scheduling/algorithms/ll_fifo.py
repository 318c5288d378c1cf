"""LL-FIFO: baseline B3 of ``docs/models/rejection-model.md`` §7, the max-flow baseline at
speed 1 + ε (applied by the engine; ε = 0 is the speed-1 reference row).

Each job goes on arrival to the eligible machine with the shortest queue (``dispatch="queue"``,
the job in service included) or the least remaining work (``dispatch="work"``), ties to the
lowest index; each machine runs its jobs FIFO. Nothing is rejected.

Compiled path: :func:`~schedbench.scheduling.algorithms._flow_kernels.fifo_kernel` (both
dispatch rules, every problem).
"""

from __future__ import annotations

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms import _flow_kernels as fk
from schedbench.scheduling.algorithms._flow_rules import least_work, shortest_queue
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class LlFifo(OnlineAlgorithm):
    name = "ll-fifo"
    problem = "maxflow"
    problems = ("wtdmaxflow", "genwtd", "stretch")  # weight-blind: the same baseline for every flow problem
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
        rule = fk.SHORTEST_QUEUE if self.params["dispatch"] == "queue" else fk.LEAST_WORK
        return fk.run_fifo(inst, order, type(self).speed_for(self.eps), rule)
