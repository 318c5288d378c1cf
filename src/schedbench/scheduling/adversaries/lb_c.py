"""LB-C: immediate dispatch + immediate reject cannot be O(1)-competitive for weighted max flow
time, as an adaptive adversary (``docs/models/rejection-model.md`` §6.3: statement [Q],
construction [R] — the spec's two instantiations; the paper's own construction is not
available). Both reuse the pairing rounds of LB-A/LB-B unchanged (the adversary drives an
:class:`~schedbench.scheduling.adversaries.lb_b.LbB` or
:class:`~schedbench.scheduling.adversaries.lb_a.LbA` game and only sets the weights), with
every job released at time 0 and m = 2^K machines.

``instantiation = "sizes"`` — (i) WtdMaxFlowTime with unit weights (problem ``wtdmaxflow``):
LB-B as is (docs/models/rejection-model.md §6.2). Round r = 1..K pairs the survivors and releases, per pair {a, b},
n_r = n₁·g^{r−1} jobs of size g^{K−r} restricted to {a, b} (per-pair volume
S = n₁·g^{K−1} every round); a pair is good if the accepted volume of its round is ≥ S/2, the
survivor of a good pair is its more loaded member, bad pairs are dropped; a final job of size S
goes to the most loaded machine OPT leaves empty. Weights w = 1, so the objective is max F_j
and weighted rejection is count rejection.

``instantiation = "weights"`` — (ii) GenWtd with unit sizes (problem ``genwtd``): LB-A's rounds
(T unit jobs per pair per round, good if ≥ T/2 accepted, survivor = more loaded member, T final
unit jobs on the most loaded OPT-empty machine), with flow weight w^f = 1 and rejection weight
w^r = g^{r−1} for round-r jobs. The final batch is not in the spec (it pins OPT, see below); it
gets w^r = g^K, the weight a round K + 1 would have. Under this instantiation the adversary's
``problem`` and ``unit_sizes`` are those of the instance (``genwtd``, True); the class
attributes (``wtdmaxflow``, False) describe instantiation (i), the default.

OPT, known before the game, holds exactly for every algorithm (checked by brute force in the tests):

* (i) OPT = S. Upper bound: LB-B's schedule — each pair's round-r jobs on the member that does
  not survive (for a bad pair: the member the survivor rule does not pick), which never gets
  another job; the final job on its OPT-empty machine. Every machine then holds ≤ S work, all
  released at 0, so every job completes by S: max F ≤ S (w = 1). Lower bound: the final job
  has size S (with n₁ = 1 a round-1 job does too).
* (ii) OPT = T. The same schedule puts ≤ T unit jobs, all released at 0, on every machine, so
  max w^f·F ≤ T; the T final jobs are restricted to one machine, so the last completes ≥ T
  after 0.

What it forces — on algorithms that dispatch on arrival and reject only on arrival (docs/models/rejection-model.md §6.2,
§6.3): with every job at time 0 nothing is processed before the last arrival, so max flow ≥
max load / s.

* (i) ratio ≥ (#rounds completed)/4 = Ω(log m): during round r the prefix budget is
  ≤ ε(1 + 2/g)·count_r, a bad pair needs ≥ n_r/2 rejections, so at most ≈ 4ε of the pairs are
  bad (g ≥ 4/ε for the proof; 4–8 in practice), and survivors of good pairs gain ≥ S/4 per round.
* (ii) online max flow ≥ (#rounds)·T/4: the budget during round r is ε times a rejection weight
  dominated by round r itself (≤ (pairs_r·T·g^{r−1})/(1 − 2/g)), while spoiling a pair costs
  ≥ (T/2)·g^{r−1}; so again only an O(ε) fraction of the pairs can be bad (g ≥ 4/ε for the
  proof). Late rejection escapes it: the backlog of early rounds has tiny rejection weight.

An algorithm that rejects nothing (and dispatches on arrival) keeps every pair good; the last
survivor then carries ≥ K·S/2 + S (i), resp. ≥ K·⌈T/2⌉ + T (ii), at time 0: at speed 1 the
ratio is ≥ 1 + K/2 in both.

Parameters: K (rounds), g (growth, both), n₁ (``n1``, sizes only), T (weights only); a
parameter of the other instantiation must keep its default. Instances above 2·10⁶ jobs are
refused (job counts: lb_b.job_count for (i), T·2^K for (ii)). The seed is not used.
"""

from __future__ import annotations

import math
from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling.adversaries.base import MAX_JOBS, Adversary
from schedbench.scheduling.adversaries.lb_a import LbA
from schedbench.scheduling.adversaries.lb_b import LbB, job_count
from schedbench.scheduling.registry import register_adversary

#: Which problem each instantiation builds.
PROBLEM_OF = {"sizes": "wtdmaxflow", "weights": "genwtd"}


@register_adversary
class LbC(Adversary):
    name = "lb-c"
    problem = "wtdmaxflow"  # instantiation "sizes" (the default); "weights" builds genwtd
    rule_label = "R"
    unit_sizes = False
    parameters = {
        "instantiation": Param(
            "sizes",
            ("sizes", "weights"),
            "sizes: (i) WtdMaxFlowTime, unit weights, LB-B's sizes; weights: (ii) GenWtd, "
            "unit sizes, rejection weight g^(r-1) in round r",
            type=str,
        ),
        "K": Param(4, doc="rounds, m = 2^K", type=int, min=1),
        "g": Param(8, doc="growth: sizes g^(K-r) (sizes) or rejection weights g^(r-1) (weights)", type=int, min=2),
        "n1": Param(1, doc="sizes only: jobs per pair in round 1", type=int, min=1),
        "T": Param(4, doc="weights only: unit jobs per pair per round (= OPT)", type=int, min=1),
    }
    reference = (
        "Roy Choudhury, Das, Garg, Kumar SODA 2015 (overview: immediate reject + immediate dispatch "
        "give no good ratio for the weighted problem); rejection-model.md §6.3, built on §6.1/§6.2"
    )

    @classmethod
    def problem_for(cls, params: dict) -> str:
        """The problem an instantiation builds (``params`` as given or resolved)."""
        return PROBLEM_OF[params.get("instantiation", cls.parameters["instantiation"].default)]

    @classmethod
    def unit_sizes_for(cls, params: dict) -> bool:
        return cls.problem_for(params) == "genwtd"

    @classmethod
    def check_params(cls, params):
        inst = params["instantiation"]
        other = "T" if inst == "sizes" else "n1"
        if params[other] != cls.parameters[other].default:
            raise ParameterError(
                f"adversary {cls.name!r}: parameter '{other}' does not apply to instantiation "
                f"{inst!r} (leave it at {cls.parameters[other].default})"
            )
        K, g = params["K"], params["g"]
        cls.refuse_too_many_jobs(
            params,
            K,
            lambda jobs: (
                f"parameter 'K'={K} (with g={g}, n1={params['n1']}, T={params['T']}) gives "
                f"{'more than 2^40 machines' if jobs is None else f'up to {jobs} jobs'}, more than {MAX_JOBS}"
            ),
        )
        if inst == "weights":
            try:
                top = float(g) ** K
            except OverflowError:
                top = math.inf
            if not math.isfinite(top):
                raise ParameterError(
                    f"adversary {cls.name!r}: parameter 'g'={g} gives rejection weights g^K "
                    f"beyond floating point (K={K})"
                )

    @classmethod
    def size(cls, params):
        """Bound: LB-B's :func:`~schedbench.scheduling.adversaries.lb_b.job_count` (sizes) or
        T·2^K (weights) jobs, as those games count them; 2^K machines."""
        K = params["K"]
        if params["instantiation"] == "sizes":
            return job_count(K, params["g"], params["n1"]), 2**K
        return params["T"] * 2**K, 2**K

    def __init__(self, eps=None, seed=0, **params):
        super().__init__(eps, seed, **params)
        p = self.params
        #: the problem and size model of this instantiation (instance attributes)
        self.problem = PROBLEM_OF[p["instantiation"]]
        self.unit_sizes = p["instantiation"] == "weights"
        if self.unit_sizes:
            self.game = LbA(eps, seed, T=p["T"], K=p["K"])
        else:
            self.game = LbB(eps, seed, K=p["K"], g=p["g"], n1=p["n1"], final_job=True)

    @property
    def m(self) -> int:
        return self.game.m

    @property
    def opt(self) -> float:
        return self.game.opt

    @property
    def history(self) -> list[tuple[int, int, int]]:
        """Per round: (round, pairs, good pairs)."""
        return self.game.history

    def rejection_weight(self, r: int) -> float:
        """w^r of round r's jobs (r = K + 1: the final batch) under instantiation "weights"."""
        return float(self.params["g"]) ** (r - 1)

    def next_jobs(self, view):
        batch = self.game.next_jobs(view)
        if not batch or not self.unit_sizes:
            return batch
        r = self.game.round if self.game.pairs else self.params["K"] + 1
        w = self.rejection_weight(r)
        return [job._replace(w_flow=1.0, w_reject=w) for job in batch]

    def observe(self, view, ids):
        self.game.observe(view, ids)
