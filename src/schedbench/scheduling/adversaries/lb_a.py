"""LB-A: the Ω(log(1/ε)) lower bound for unit-job LoadBalancing with rejection, as an adaptive
adversary (``docs/models/rejection-model.md`` §6.1, label [R✓, inferred tightness]: a
reconstruction checked with a proof sketch and a small simulation; the paper's own
construction is not available).

Construction (m = 2^K machines, T = the OPT it builds, all jobs released at time 0 — the spec
allows "time 0 for the flow version or any time for load balancing"; time 0 is used):

1. survivors A₀ := all machines;
2. round r = 1..K: pair A_{r−1} consecutively and release T unit jobs restricted to each pair
   {a, b} (pair by pair, in that order);
3. after the round — judged on the view *after the whole round was released*, so late
   rejections the algorithm made in ``after_arrival`` during the round count — a pair is
   *good* if the algorithm accepted (dispatched and not rejected) ≥ T/2 of its jobs. The
   survivor of a good pair is the member with the larger current load (ties: lower index);
   bad pairs are dropped. A_r := the survivors.

Two rules the spec leaves open [R]:

* an odd survivor count leaves the last survivor unpaired; it is carried to the next round
  (it got no job this round, so OPT is unchanged) — this only happens after bad pairs;
* **final jobs**: the spec's "OPT = T" is an upper bound only. Without more jobs the realised
  OPT can be smaller (K = 2, T = 4, every pair good: 3T unit jobs fit on 4 machines with
  makespan 3). So, like the ANR tree's final job (docs/models/rejection-model.md §6.6), T more unit jobs are released,
  restricted to one machine that OPT leaves empty: the machine of largest current load (ties:
  lower index) among the final survivors and the surviving-rule member of each bad pair.
  These pin OPT ≥ T and also add up to T to the online load.

OPT = T exactly (the claimed optimum, known before the game): each pair's jobs go to the
member that does not survive (for a bad pair: to the member the survivor rule does not pick),
which never receives another job; survivors get no job of their pairs; the T final jobs go to
their OPT-empty machine. So every machine carries ≤ T, and the final jobs force ≥ T.

What it forces (docs/models/rejection-model.md §6.1): every survivor of a good pair gains ≥ T/4 per round (its pair
accepted ≥ T/2 and it is the more loaded member), so the online load is
≥ (#rounds with a good pair)·T/4. The budget ≈ ε·m·T allows spoiling (≥ T/2 rejections each)
at most ≈ 2εm pairs, so the rounds r ≲ log₂(1/(2ε)) keep most pairs good: ≈ T·log₂(1/ε)/4,
matching the O(log(1/ε)) upper bound of §2.1. Hence the default K = ⌈log₂(1/ε)⌉ + 2.

An algorithm that rejects nothing (and dispatches on arrival) accepts all T jobs of every pair,
so every pair is good, the game runs all K rounds and the last survivor ends with load
≥ K·T/2 before the final jobs (both members of a pair start the round at ≥ L, and the pair
gains T, so the more loaded one has ≥ L + T/2), then + T: ratio ≥ 1 + K/2.

Jobs: T·(2^K − 1) in the rounds (fewer after bad pairs) + T final = at most T·2^K;
combinations above 2·10^6 jobs are refused. The seed is not used (the construction is
deterministic given the algorithm's decisions).
"""

from __future__ import annotations

import math

from schedbench.hall.params import Derived, Param, ParameterError
from schedbench.scheduling.adversaries.base import MAX_JOBS
from schedbench.scheduling.adversaries._pairing import PairingRounds
from schedbench.scheduling.budget import ceil_log2
from schedbench.scheduling.model import JobSpec
from schedbench.scheduling.registry import register_adversary


@register_adversary
class LbA(PairingRounds):
    name = "lb-a"
    problem = "load"
    rule_label = "R✓"
    unit_sizes = True
    parameters = {
        "T": Param(4, doc="unit jobs per pair per round (= OPT)", type=int, min=1),
        "K": Param(
            doc="rounds, m = 2^K (eps required when derived)",
            type=int,
            min=1,
            derive=Derived(lambda v: LbA.rounds_for(v["eps"]), "⌈log₂(1/ε)⌉ + 2", needs=("eps",)),
        ),
    }
    reference = "Roy Choudhury, Das, Garg, Kumar SODA 2015 §8 (LB-A); docs/models/rejection-model.md §6.1"

    @classmethod
    def check_params(cls, params):
        T, K = params["T"], params["K"]
        if K is None:
            return  # derived from eps when the adversary is built
        cls.refuse_too_many_jobs(
            params,
            K,
            lambda jobs: (
                f"parameters 'K'={K} and 'T'={T} give up to "
                f"T·2^K = {'more than 2^40' if jobs is None else jobs} jobs, more than {MAX_JOBS}"
            ),
        )

    @classmethod
    def size(cls, params):
        """Bound: T·2^K jobs (T·(2^K − 1) in the rounds when every pair is good, fewer after bad
        pairs, + T final), 2^K machines; None while K waits for ε."""
        K = params["K"]
        return None if K is None else (params["T"] * 2**K, 2**K)

    @staticmethod
    def rounds_for(eps) -> int:
        """K = ⌈log₂(1/ε)⌉ + 2 (docs/models/rejection-model.md §6.1), for ε in (0, 1)."""
        ok = isinstance(eps, (int, float)) and not isinstance(eps, bool) and math.isfinite(eps)
        if not (ok and 0.0 < eps < 1.0):
            raise ParameterError(
                f"adversary 'lb-a': parameter 'K' not given, and 'eps' = {eps!r} does not "
                "allow computing it (K = ceil(log2(1/eps)) + 2 needs eps in (0, 1))"
            )
        return ceil_log2(1.0 / eps) + 2

    def __init__(self, eps=None, seed=0, **params):
        super().__init__(eps, seed, **params)
        self.start()

    @property
    def m(self) -> int:
        return 2 ** self.params["K"]

    @property
    def rounds(self) -> int:
        return self.params["K"]

    def round_jobs(self, r: int) -> tuple[int, int]:
        return self.params["T"], 1

    def accepted_enough(self, view, ids) -> bool:
        return 2 * sum(1 for j in ids if self.accepted(view, j)) >= self.params["T"]

    def final_jobs(self, view, machine: int):
        return [JobSpec(view.time, 1, [machine])] * self.params["T"]
