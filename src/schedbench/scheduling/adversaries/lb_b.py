"""LB-B (Thm 8.2): immediate dispatch + immediate reject cannot be O(1)-competitive for
LoadBalancing with arbitrary sizes (hence for MaxFlowTime), as an adaptive adversary (spec
``docs/models/rejection-model.md`` §6.2: statement [Q], construction [R✓] — reconstructed and
checked by a small simulation; the paper's own construction is not available).

Idea: ANR pairs in which each later round uses many more, smaller jobs. An immediate-reject
algorithm can never throw away enough of a round within its prefix budget, while late
rejection of the few early big jobs would be cheap.

Construction (m = 2^K machines, growth g, n₁ jobs per pair in round 1, per-pair volume
S = n₁·g^{K−1} = OPT; all jobs released at time 0):

1. survivors A₀ := all machines;
2. round r = 1..K: pair A_{r−1} consecutively; for each pair {a, b} release
   n_r = n₁·g^{r−1} jobs of size s_r = g^{K−r} (integers, n_r·s_r = S) restricted to {a, b},
   pair by pair;
3. after the round — judged on the view after the whole round was released, so late
   rejections made in ``after_arrival`` during the round count — a pair is *good* if the
   accepted (dispatched and not rejected) volume of its round-r jobs is ≥ S/2. The survivor of
   a good pair is the member with the larger current load (ties: lower index); bad pairs are
   dropped.

Rules the spec leaves open [R]: an odd survivor count carries the last survivor, unpaired, to
the next round (only after bad pairs). With ``final_job`` (default) one job of size S is
released at the end, restricted to the machine of largest current load (ties: lower index)
among the final survivors and the survivor-rule member of each bad pair — machines OPT leaves
empty. It pins OPT ≥ S when n₁ > 1 (then no single job has size S and, e.g., with K = 1 the n₁
jobs of size 1 fit on 2 machines in ⌈n₁/2⌉ < S); with n₁ = 1 a round-1 job already has size S,
so ``final_job=False`` (the spec's construction exactly) is allowed only for n₁ = 1.

OPT = S exactly: each pair's round-r jobs go to the member that does not survive (for a bad
pair: the member the survivor rule does not pick), which never gets another job; the final job
goes to its OPT-empty machine.

What it forces (docs/models/rejection-model.md §6.2): ratio ≥ (#rounds completed)/4 = Ω(log m) for immediate-reject
algorithms. During round r the prefix budget is ≤ ε·(count_r + earlier counts)
≈ ε(1 + 2/g)·count_r; a bad pair needs ≥ n_r/2 rejections, so at most ≈ 2ε(1 + 2/g) ≤ 4ε of
the pairs can be bad (g ≥ 4/ε for the proof; g = 4–8 in practice), and survivors of good pairs
gain ≥ S/4 per round. With every job at time 0, max flow ≥ max load.

An algorithm that rejects nothing (and dispatches on arrival) accepts the whole volume S of
every pair, so every pair is good and all K rounds run; the survivor of a pair whose members
start at ≥ L ends at ≥ L + S/2, so the last survivor carries ≥ K·S/2 (+ S with the final job).

Jobs (all pairs good, the most there can be):
N = n₁·Σ_{r=1..K} 2^{K−r}·g^{r−1} (+ 1 final job) ≈ n₁·m·(g/2)^{K−1}; combinations with
N > 2·10^6 are refused: g = 8, K = 8, n₁ = 1 gives 2 796 161 and g = 4, K = 11 gives
2 096 129 (the spec's "about 0.26M" for the latter disagrees with its own formula); g = 8,
K = 7 gives 349 569. The seed is not used.
"""

from __future__ import annotations

from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling.adversaries.base import MAX_JOBS
from schedbench.scheduling.adversaries._pairing import PairingRounds
from schedbench.scheduling.model import JobSpec
from schedbench.scheduling.registry import register_adversary


def job_count(K: int, g: int, n1: int, final_job: bool = True) -> int:
    """N = n₁·Σ_{r=1..K} 2^{K−r}·g^{r−1} (+1): the jobs released when every pair is good."""
    return n1 * sum(2 ** (K - r) * g ** (r - 1) for r in range(1, K + 1)) + int(bool(final_job))


@register_adversary
class LbB(PairingRounds):
    name = "lb-b"
    problem = "load"
    rule_label = "R✓"
    parameters = {
        "K": Param(4, doc="rounds, m = 2^K", type=int, min=1),
        "g": Param(8, doc="growth: round r has n1·g^(r-1) jobs of size g^(K-r) per pair", type=int, min=2),
        "n1": Param(1, doc="jobs per pair in round 1", type=int, min=1),
        "final_job": Param(
            True, (True, False), "add one job of size S on an OPT-empty machine (pins OPT = S)", type=bool
        ),
    }
    reference = "Roy Choudhury, Das, Garg, Kumar SODA 2015 Thm 8.2; docs/models/rejection-model.md §6.2"

    @classmethod
    def check_params(cls, params):
        K, g, n1 = params["K"], params["g"], params["n1"]
        if not params["final_job"] and n1 != 1:
            raise ParameterError(
                f"adversary {cls.name!r}: parameter 'final_job' may be False only with n1 = 1 "
                f"(otherwise OPT may be below S), got n1 = {n1}"
            )
        cls.refuse_too_many_jobs(
            params,
            K,
            lambda jobs: (
                f"parameters 'K'={K}, 'g'={g}, 'n1'={n1} give "
                f"{'more than 2^40 machines' if jobs is None else f'{jobs} jobs'} "
                f"(N = n1·sum_r 2^(K-r)·g^(r-1) must be <= {MAX_JOBS})"
            ),
        )

    @classmethod
    def size(cls, params):
        """Bound: :func:`job_count` jobs (every pair good; bad pairs release fewer), 2^K machines."""
        K = params["K"]
        return job_count(K, params["g"], params["n1"], params["final_job"]), 2**K

    def __init__(self, eps=None, seed=0, **params):
        super().__init__(eps, seed, **params)
        self.start()
        self.final_done = not self.params["final_job"]

    @property
    def m(self) -> int:
        return 2 ** self.params["K"]

    @property
    def S(self) -> int:
        """Per-pair volume of every round, = OPT."""
        return self.params["n1"] * self.params["g"] ** (self.params["K"] - 1)

    @property
    def opt(self) -> float:
        return float(self.S)

    @property
    def rounds(self) -> int:
        return self.params["K"]

    def round_jobs(self, r: int) -> tuple[int, int]:
        K, g, n1 = self.params["K"], self.params["g"], self.params["n1"]
        return n1 * g ** (r - 1), g ** (K - r)

    def accepted_enough(self, view, ids) -> bool:
        return 2 * sum(view.job(j).size for j in ids if self.accepted(view, j)) >= self.S

    def final_jobs(self, view, machine: int):
        return [JobSpec(view.time, self.S, [machine])]
