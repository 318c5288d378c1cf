"""Section 4: the paper's overview example of why algorithm A must process by load/size and not
smallest size first (``docs/models/rejection-model.md`` §6.5, LB-E, label [Q, checked]:
the sequence is quoted from the overview; the numbers were checked by a small simulation).

A fixed sequence (it ignores the view: nothing is adaptive), WtdMaxFlowTime with every weight 1
(so the objective is the max flow time and the budget counts jobs), sizes in {1, 2}. Machines
m1..m8 of the spec are indices 0..7; with ``m`` > 8 the extra machines are only in the "all"
sets. At t = 0, arrivals in this order (the arrow is where per-class least load with ties to
the lowest index puts each job — the spec's annotation, not part of the instance):

1. four size-2 jobs with S = all            → m1, m2, m3, m4;
2. one size-2 job with S = {m1, m2}           → m1;
3. one size-2 job with S = {m3, m4}           → m3;
4. one size-2 job with S = {m1}               → m1;
5. one size-1 job with S = all                → m1.

Then, for t = 1..``horizon``: one size-1 job with S = all, and at even t also one size-2 job with
S = {m1} (released after the size-1 job of the slot). Jobs: 8 + horizon + ⌊horizon/2⌋.

OPT = 2 exactly, for every horizon ≥ 0 and m ≥ 8. Lower bound: a size-2 job has flow ≥ 2.
Upper bound, a schedule: the {m1} job of t = 0 runs on m1 in [0, 2) and the size-2 job
released at t = 2k runs on m1 in [2k, 2k + 2); the {m1, m2} job on m2, the {m3, m4} job on m3,
the four "all" size-2 jobs on m4..m7, each in [0, 2); the size-1 job of t = 0 on m8 in [0, 1),
and every later size-1 job on m8 in its own slot [t, t + 1). Flows are ≤ 2. With m = 7 OPT
would exceed 2 (seven size-2 jobs and one size-1 job at t = 0 need eight machines busy in
[0, 2) for flow 2), hence m ≥ 8.

What it forces (docs/models/rejection-model.md §4.2 and §6.5): take algorithm A's dispatch — class (⌈log₂ p⌉, ⌊log₂ w⌋),
least load of the job's own class queue among S_j, ties to the lowest index — with A's queue
limit (reject on arrival when the class load + p_j > α·T/2^b; ε = 1/4, α = 1/ε = 4, T = 2 gives
the spec's cap 4T* = 8). Processing the smallest remaining job first across a machine's queues
lets m1's size-2 queue fill up: it starts rejecting the {m1} size-2 jobs at t = 4, 6, 8, …
(the overview: "the fraction of the rejected jobs will be close to 1/2"; spec: 0.327 by count,
0.488 by volume). With the test-local rules: exactly the horizon/2 − 1 jobs of t = 4, 6, …, so
at the default horizon 400, 199 of 608 jobs (0.3273) and 398 of 815 units (0.4883) — the
spec's numbers; asymptotically 1/3 and 1/2, far above ε = 1/4. Processing the queue that
maximises load·2^b/2^a (A's rule) rejects nothing. The tests reproduce both with test-local
versions of these rules (tests/unit/test_adversaries_weighted.py). The seed is not used.
"""

from __future__ import annotations

from schedbench.hall.params import Param
from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.model import JobSpec
from schedbench.scheduling.registry import register_adversary

#: The longest stream (slots) the adversary agrees to release (1.5 jobs per slot).
MAX_HORIZON = 1_000_000


def job_count(horizon: int) -> int:
    """8 jobs at t = 0, one size-1 job per slot 1..horizon, one size-2 job per even slot."""
    return 8 + horizon + horizon // 2


@register_adversary
class Section4(Adversary):
    name = "section4"
    problem = "wtdmaxflow"
    rule_label = "Q"
    unit_sizes = False
    parameters = {
        "horizon": Param(
            400,
            doc="last slot of the streams (size-1 jobs at t = 1..horizon, size-2 jobs at even "
            "t); 400 reproduces the spec's 0.327 / 0.488",
            type=int,
            min=0,
            max=MAX_HORIZON,
        ),
        "m": Param(
            8,
            doc="machines, >= 8 (m1..m8 of the example; extra machines only join the 'all' sets)",
            type=int,
            min=8,
            max=1 << 20,
        ),
    }
    reference = (
        "Roy Choudhury, Das, Garg, Kumar SODA 2015, Section 4 (overview example: why processing "
        "must use load/size); docs/models/rejection-model.md §6.5 (LB-E)"
    )

    @classmethod
    def size(cls, params):
        """Exact: :func:`job_count` jobs (a fixed sequence), m machines."""
        return job_count(params["horizon"]), params["m"]

    def __init__(self, eps=None, seed=0, **params):
        super().__init__(eps, seed, **params)
        self.t = -1  # the last slot released

    @property
    def opt(self) -> float:
        return 2.0

    def next_jobs(self, view):
        if self.t >= self.params["horizon"]:
            return None
        self.t += 1
        t, every = self.t, list(range(self.m))
        if t == 0:
            return [JobSpec(0, 2, every) for _ in range(4)] + [
                JobSpec(0, 2, [0, 1]),
                JobSpec(0, 2, [2, 3]),
                JobSpec(0, 2, [0]),
                JobSpec(0, 1, every),
            ]
        return [JobSpec(t, 1, every)] + ([JobSpec(t, 2, [0])] if t % 2 == 0 else [])
