"""The lower-bound adversaries LB-A (spec §6.1) and LB-B (spec §6.2, Thm 8.2): claimed OPT proven
by the offline solver on the realised instance, the forced growth the spec predicts, pairs judged
after the whole round (late rejections count), parameter errors, determinism."""

import math
import sys

import numpy as np
import pytest

import schedbench
from schedbench.scheduling.adversaries.lb_b import job_count
from schedbench.scheduling.algorithms.base import OnlineAlgorithm, ParameterError
from schedbench.scheduling.offline import makespan_lower_bound
from schedbench.scheduling.registry import adversary_names, get_adversary


def _proven_opt(res):
    opt = schedbench.opt_makespan(res.instance)
    assert opt.status == "optimal" and opt.value == res.claimed_opt, (opt, res.claimed_opt)
    return opt


def test_registered_with_the_contract():
    assert {"lb-a", "lb-b"} <= set(adversary_names())
    for name in ("lb-a", "lb-b"):
        cls = get_adversary(name)
        assert cls.name == name and cls.problem == "load" and cls.rule_label == "R✓" and cls.reference
        doc = sys.modules[cls.__module__].__doc__
        assert "[R✓" in doc and "every pair is good" in doc and "OPT" in doc


# --------------------------------------------------------------------------- LB-A
@pytest.mark.parametrize("ties", ["index", "random"])
@pytest.mark.parametrize("T", [1, 3, 4])
def test_lb_a_against_greedy_forces_one_plus_k_over_two(T, ties):
    # Greedy rejects nothing, so every pair is good and all K rounds run. Both members of a
    # pair start a round with the same load L (induction: all survivors are equal) and greedy
    # splits the pair's T jobs as evenly as it can, so the survivor (the heavier member) gains
    # exactly ceil(T/2): after K rounds L = K*ceil(T/2); the T final jobs, restricted to the
    # last survivor, add T. For any algorithm that accepts everything the survivor gains ≥ T/2
    # per round (the heavier member holds ≥ half the pair's L+L+T), so objective ≥ T(1 + K/2).
    ratios = []
    for K in range(1, 7):
        res = schedbench.run_adversary(
            "lb-a", "greedy", seed=5, adversary_params={"T": T, "K": K}, algorithm_params={"ties": ties}
        )
        assert res.valid and res.status == "ok" and res.rejected_frac_max_prefix == 0
        assert res.claimed_opt == T and res.instance.m == 2**K
        assert res.instance.n == T * 2**K  # T(2^K − 1) round jobs + T final jobs: nothing dropped
        assert res.objective == K * math.ceil(T / 2) + T
        assert res.objective >= T * (1 + K / 2)
        _proven_opt(res)
        ratios.append(res.objective / res.claimed_opt)
    assert all(a < b for a, b in zip(ratios, ratios[1:]))


@pytest.mark.parametrize("eps", [0.25, 0.1])
@pytest.mark.parametrize("alpha_rule", ["paper", "safe"])
def test_lb_a_against_lb_unit_reject_reaches_its_cap_or_the_greedy_value(eps, alpha_rule):
    res = schedbench.run_adversary(
        "lb-a", "lb-unit-reject", eps=eps, adversary_params={"T": 4}, algorithm_params={"alpha_rule": alpha_rule}
    )
    K = math.ceil(math.log2(1 / eps)) + 2  # the default K from eps
    assert res.instance.meta["adversary_params"] == {"T": 4, "K": K} and res.instance.m == 2**K
    assert res.valid and res.status == "ok" and res.rejected_frac_max_prefix <= eps
    _proven_opt(res)
    # lb-unit-reject is lowest-index greedy until the pair's lighter member reaches the cap
    # α·T (α = ⌈log₂ 1/ε⌉, doubled by "safe"); all survivors carry the same even load, so it
    # follows greedy's K·T/2 + T and stops exactly at the cap.
    alpha = math.ceil(math.log2(1 / eps)) * (2 if alpha_rule == "safe" else 1)
    assert res.objective == min(alpha * 4, K * 2 + 4)
    assert res.objective / res.claimed_opt >= 2  # Ω(log 1/ε): ≥ 2 already at ε = 1/4


def test_lb_a_k_from_eps_and_explicit_k_wins():
    adv = get_adversary("lb-a")
    assert adv(eps=0.25).m == 16 and adv(eps=0.1).m == 64 and adv(eps=0.5).m == 8
    assert adv(eps=0.1, K=3).m == 8
    assert adv(eps=0.1).params == {"T": 4, "K": 6}
    assert adv.resolve_params({}) == {"T": 4, "K": None}  # config-time check: K left to eps


def test_lb_a_parameter_errors_name_the_parameter():
    adv = get_adversary("lb-a")
    with pytest.raises(ParameterError, match="'K'.*'eps'"):
        schedbench.run_adversary("lb-a", "greedy")  # plain greedy: no eps, and no K given
    with pytest.raises(ParameterError, match="'eps'"):
        adv(eps=1.5)
    with pytest.raises(ParameterError, match="'T'"):
        adv(K=2, T=0)
    with pytest.raises(ParameterError, match="'T'"):
        adv(K=2, T="4")
    with pytest.raises(ParameterError, match="'K'"):
        adv(K=0)
    with pytest.raises(ParameterError, match="'K'"):
        adv(K=2.0)
    with pytest.raises(ParameterError, match="'K'.*jobs"):
        adv(K=20, T=4)  # 4·2^20 jobs
    with pytest.raises(ParameterError, match="'K'.*jobs"):
        adv(eps=1e-7)  # K = 26 from eps
    with pytest.raises(ParameterError, match="has no parameter 'm'"):
        adv(K=2, m=4)


# --------------------------------------------------------------------------- LB-B
def test_lb_b_small_instance_opt_proven_by_milp_and_flow_bound():
    res = schedbench.run_adversary("lb-b", "greedy", adversary_params={"K": 3, "g": 4})
    S = 1 * 4**2
    assert res.valid and res.claimed_opt == S
    assert res.instance.n == job_count(3, 4, 1) == 4 * 1 + 2 * 4 + 1 * 16 + 1
    sizes = np.bincount(res.instance.size)
    assert sizes[16] == 4 + 1 and sizes[4] == 2 * 4 and sizes[1] == 16
    opt = _proven_opt(res)
    assert opt.seconds < 10
    assert makespan_lower_bound(res.instance) == S


@pytest.mark.parametrize("final_job", [True, False])
def test_lb_b_against_greedy_ratio_grows_with_k(final_job):
    # Greedy accepts everything, so every pair is good. With n1 = 1 round 1 puts the pair's one
    # job of size S on the lower index (the survivor); in round r ≥ 2 both members carry the
    # same load and n_r = g^(r-1) (even) jobs of size g^(K-r) split evenly: +S/2 for the
    # survivor. So greedy ends at S + (K−1)·S/2, plus S for the final job on the last survivor:
    # ratio (K+1)/2, or (K+3)/2 with the final job. (Any algorithm that accepts everything:
    # ≥ K·S/2 (+S) — the heavier member holds ≥ half of L + L + S.)
    ratios = []
    for K in range(2, 6):
        res = schedbench.run_adversary("lb-b", "greedy", adversary_params={"K": K, "g": 4, "final_job": final_job})
        assert res.valid and res.rejected_frac_max_prefix == 0
        assert res.claimed_opt == 4 ** (K - 1) and res.instance.n == job_count(K, 4, 1, final_job)
        ratio = res.objective / res.claimed_opt
        assert ratio == (K + 3) / 2 if final_job else (K + 1) / 2
        assert ratio >= K / 2 + (1 if final_job else 0)
        if K <= 3:
            _proven_opt(res)
        ratios.append(ratio)
    assert all(a < b for a, b in zip(ratios, ratios[1:]))


def test_lb_b_final_job_pins_opt_when_n1_above_one():
    res = schedbench.run_adversary("lb-b", "greedy", adversary_params={"K": 2, "g": 2, "n1": 3})
    assert res.claimed_opt == 3 * 2 and res.valid
    _proven_opt(res)


def test_lb_b_parameter_errors_name_the_parameter():
    adv = get_adversary("lb-b")
    assert adv().m == 16 and adv().opt == 8**3 and adv().params["final_job"] is True
    for key, value in (("K", 0), ("g", 1), ("n1", 0), ("g", 4.0), ("K", True)):
        with pytest.raises(ParameterError, match=f"'{key}'"):
            adv(**{key: value})
    with pytest.raises(ParameterError, match="'final_job'"):
        adv(n1=2, final_job=False)
    with pytest.raises(ParameterError, match="'K'.*'g'.*'n1'.*jobs"):
        adv(K=8, g=8)  # 2 796 161 jobs
    assert job_count(8, 8, 1) > 2_000_000 > job_count(7, 8, 1)
    adv(K=7, g=8)  # 349 569 jobs: allowed
    with pytest.raises(ParameterError, match="has no parameter 'T'"):
        adv(T=2)


def test_refuse_too_many_jobs_counts_only_up_to_k_40_and_names_the_adversary():
    """Adversary.refuse_too_many_jobs: size() is asked only for K <= 40; above MAX_JOBS (or K > 40,
    count None) the message is the adversary's name then message(count)."""
    from schedbench.scheduling.adversaries.base import MAX_JOBS, Adversary

    asked = []

    class Sized(Adversary):
        name = "test-sized"

        @classmethod
        def size(cls, params):
            asked.append(params["K"])
            return params["jobs"], 2 ** params["K"]

    Sized.refuse_too_many_jobs({"K": 3, "jobs": MAX_JOBS}, 3, lambda jobs: "unused")  # at the limit: allowed
    with pytest.raises(ParameterError, match=r"^adversary 'test-sized': got 2000001$"):
        Sized.refuse_too_many_jobs({"K": 3, "jobs": MAX_JOBS + 1}, 3, lambda jobs: f"got {jobs}")
    with pytest.raises(ParameterError, match=r"^adversary 'test-sized': got None$"):
        Sized.refuse_too_many_jobs({"K": 41, "jobs": 1}, 41, lambda jobs: f"got {jobs}")
    assert asked == [3, 3]


# --------------------------------------------------------------------------- judged after the round
class _LateRejectOnPair01(OnlineAlgorithm):
    """Lowest-index least loaded; after each arrival, late-rejects the earliest accepted job
    restricted to {0, 1} whenever a whole job fits in the budget. Not registered."""

    name = "test-late-reject-01"
    problem = "load"
    model = "rejection"
    late_reject = True

    def __init__(self, m, **kw):
        super().__init__(m, **kw)
        self.load = np.zeros(self.m)
        self.mine: list[int] = []

    def on_arrival(self, job, view):
        i = int(job.eligible[np.argmin(self.load[job.eligible])])
        self.load[i] += job.size
        if job.eligible.tolist() == [0, 1]:
            self.mine.append(job.id)
        return i

    def after_arrival(self, view):
        if self.mine and view.budget_left >= 1:
            j = self.mine.pop(0)
            self.load[view.machine_of(j)] -= view.job(j).size
            return [j]
        return []


def test_lb_a_judges_a_pair_after_the_whole_round():
    # eps = 1/2, K = 2, T = 4: jobs 0–3 go to pair {0,1}, 4–7 to {2,3}. The algorithm rejects
    # jobs 0 and 1 while {0,1}'s jobs arrive (at the end of that pair's jobs it has 2 = T/2
    # accepted: good so far) and jobs 2 and 3 while {2,3}'s jobs arrive: at the end of the
    # round {0,1} has accepted nothing, so it is bad and round 2 has no pair at all.
    res = schedbench.run_adversary("lb-a", _LateRejectOnPair01, eps=0.5, adversary_params={"T": 4, "K": 2})
    inst = res.instance
    assert res.valid and int(res.outcome.rejected.sum()) == 4
    assert inst.n == 8 + 4
    assert [inst.eligible(j).tolist() for j in range(8, 12)] == [[2]] * 4  # the final jobs
    _proven_opt(res)


def test_lb_b_judges_a_pair_by_accepted_volume_after_the_whole_round():
    # K = 2, g = 4, S = 4: round 1 is one job of size 4 per pair; job 0 ({0,1}) is rejected when
    # job 1 ({2,3}) arrives, so {0,1} is bad at the end of the round and only 2 survives.
    res = schedbench.run_adversary("lb-b", _LateRejectOnPair01, eps=0.5, adversary_params={"K": 2, "g": 4})
    inst = res.instance
    assert res.valid and res.outcome.rejected.tolist() == [True, False, False]
    assert inst.size.tolist() == [4, 4, 4] and inst.eligible(2).tolist() == [2]
    _proven_opt(res)


# --------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("adversary, params", [("lb-a", {"T": 3, "K": 5}), ("lb-b", {"K": 4, "g": 4})])
def test_same_seed_same_instance(adversary, params):
    def play(seed):
        return schedbench.run_adversary(
            adversary, "greedy", seed=seed, adversary_params=params, algorithm_params={"ties": "random"}
        ).instance

    a, b = play(7), play(7)
    for field in ("release", "size", "indptr", "indices"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert a.meta == b.meta
