"""The Azar–Naor–Rom tree as an adaptive adversary (docs/models/rejection-model.md §6.6; Azar, Naor, Rom, "The
competitiveness of on-line assignments", J. Algorithms 1995).

m = 2^K machines. Round r = 1..K pairs the survivors of round r−1 consecutively and releases
one unit job restricted to each pair, at time 0; whichever machine of a pair the algorithm
loaded survives (if it rejected the job, the member with the larger load, ties to the lower
index — docs/models/rejection-model.md §6.1's rule). With ``final_job`` one more job is restricted to the last survivor.
OPT = 1: each pair's job goes to the member that does not survive (it never gets another job),
the final job to the last survivor. Any deterministic or randomised algorithm that accepts
everything ends with load K + 1 = ⌈log₂ m⌉ + 1 on the last survivor.
"""

from __future__ import annotations

from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling.adversaries.base import Adversary, power_of_two
from schedbench.scheduling.model import JobSpec
from schedbench.scheduling.registry import register_adversary


#: The largest tree the adversary agrees to play (machines; it releases m − 1 jobs in log2 m
#: rounds, each a Python step of the engine): m = 2^24 ran for minutes, m = 2^40 exhausted memory.
MAX_MACHINES = 2**20


@register_adversary
class AnrTree(Adversary):
    name = "anr-tree"
    problem = "load"
    rule_label = "R✓"
    unit_sizes = True
    parameters = {
        "m": Param(doc="machines, a power of two", type=int, required=True, rule=power_of_two(1)),
        "final_job": Param(True, (True, False), "add the final job restricted to the last survivor", type=bool),
    }
    reference = "Azar–Naor–Rom 1995; docs/models/rejection-model.md §6.6"

    @classmethod
    def size(cls, params):
        """Exact: m − 1 pair jobs (m/2^r in round r) + the final job, m machines."""
        return params["m"] - 1 + int(params["final_job"]), params["m"]

    @classmethod
    def check_params(cls, params):
        m = params["m"]
        if m > MAX_MACHINES:
            raise ParameterError(
                f"adversary {cls.name!r}: parameter 'm' = {m} is more than {MAX_MACHINES} machines "
                f"(it would release {cls.size(params)[0]} jobs through the step path)"
            )
        if m == 1 and not params["final_job"]:
            raise ParameterError(
                f"adversary {cls.name!r}: with 'm' = 1 there are no rounds, so 'final_job' must be "
                "true (otherwise no job is released)"
            )

    def __init__(self, eps=None, seed=0, **params):
        super().__init__(eps, seed, **params)
        self.survivors = list(range(self.params["m"]))
        self.pairs: list[tuple[int, int]] = []
        self.done = False

    @property
    def opt(self) -> float:
        return 1.0

    def next_jobs(self, view):
        if len(self.survivors) > 1:
            s = self.survivors
            self.pairs = [(s[k], s[k + 1]) for k in range(0, len(s), 2)]
            return [JobSpec(view.time, 1, pair) for pair in self.pairs]
        if self.params["final_job"] and not self.done:
            self.done = True
            self.pairs = []
            return [JobSpec(view.time, 1, [self.survivors[0]])]
        return None

    def observe(self, view, ids):
        if not self.pairs:
            return
        survivors = []
        for (a, b), j in zip(self.pairs, ids):
            chosen = view.machine_of(j)
            if chosen < 0 or view.is_rejected(j):
                chosen = a if view.load(a) >= view.load(b) else b
            survivors.append(chosen)
        self.survivors = survivors
