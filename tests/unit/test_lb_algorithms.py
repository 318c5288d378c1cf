"""The LoadBalancing algorithms against hand-checked cases and independent counts."""

import math

import numpy as np
import pytest
from hypothesis import given, settings

import schedbench
from schedbench import Instance
from schedbench.scheduling.algorithms._oracles import PrefixUnitOpt
from schedbench.scheduling.algorithms.lb_general_reject import lb_general_constants
from schedbench.scheduling.registry import get_family

from ..strategies import instances


@pytest.mark.parametrize("eps, k", [(0.5, 2), (0.3, 4), (0.25, 4), (0.1, 10)])
def test_drop_every_k_rejects_exactly_floor_n_i_over_k_on_each_machine(eps, k):
    # jobs restricted to one machine each: machine i receives n_i of them in arrival order
    counts = [7, 12, 1, 25]
    eligible = [[i] for i, c in enumerate(counts) for _ in range(c)]
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(eligible))
    inst = Instance.from_lists(4, [0] * len(eligible), [1] * len(eligible), [eligible[p] for p in perm])
    for fast in (True, False):
        res = schedbench.run("drop-every-k", inst, eps=eps, fast=fast)
        assert res.valid and res.rejected_frac_max_prefix <= eps + 1e-12
        per_machine = [int(np.sum(res.outcome.rejected & (inst.indices == i))) for i in range(4)]
        assert per_machine == [c // k for c in counts]
        # the rejected ones are the k-th, 2k-th, ... job routed to each machine
        for i in range(4):
            mine = np.flatnonzero(inst.indices == i)
            np.testing.assert_array_equal(
                np.flatnonzero(res.outcome.rejected[mine]) + 1, np.arange(k, counts[i] + 1, k)
            )


def test_random_two_is_reproducible_and_picks_one_of_the_two_least_loaded():
    inst = get_family("random-restricted").make(0, 3, m=16, n=400, d=4)
    a = schedbench.run("random-two", inst, seed=5)
    b = schedbench.run("random-two", inst, seed=5, fast=False)
    c = schedbench.run("random-two", inst, seed=6)
    np.testing.assert_array_equal(a.outcome.machine, b.outcome.machine)
    assert not np.array_equal(a.outcome.machine, c.outcome.machine)
    # replay: every choice is among the two least loaded (by load, index) at that moment
    load = np.zeros(16)
    for j in inst.arrival_order():
        elig = sorted(inst.eligible(j).tolist(), key=lambda i: (load[i], i))
        assert a.outcome.machine[j] in elig[:2]
        load[a.outcome.machine[j]] += inst.size[j]


def test_greedy_cap_never_exceeds_the_budget_and_counts_its_guard():
    inst = Instance.from_lists(1, [0] * 10, [1] * 10, [[0]] * 10)
    res = schedbench.run("greedy-cap", inst, eps=0.2, opt=2.0, kappa=1.0)
    # cap κT = 2: jobs 3.. would be rejected; the budget (0.2 per arrival) allows only 2 of 8
    assert res.valid and res.rejected_frac == 0.2 and res.rejected_frac_max_prefix <= 0.2
    assert res.counters["guard_fires"] == 6 and res.objective == 8


def test_lb_general_overload_rule_rejects_the_largest_latest_job_after_dispatch():
    # one machine, T* given as 2 (T = 2T* = 4); eps = 0.5: α = 2⌈log₂ 4⌉ = 4, β = 2α = 8, so each
    # class may take virtual load α·T = 16 and the real load may reach β·T = 32.
    # Sizes 8, 8 | 4, 4, 4, 4 | 2: the 7th job brings the real load to 34 > 32, so the largest
    # class (8), latest dispatched (job 1) is rejected at that arrival: load 26. Job 7 (2): 28.
    # Job 8 (8): class-8 virtual load is still 16 (V never decreases): rejected on arrival.
    # Job 9 (1): 29. Max load over steps: 32 (after job 5).
    sizes = [8, 8, 4, 4, 4, 4, 2, 2, 8, 1]
    inst = Instance.from_lists(1, [0] * 10, sizes, [[0]] * 10)
    assert lb_general_constants(0.5, "safe", "2alpha") == (4, 8)
    for fast in (True, False):
        res = schedbench.run("lb-general-reject", inst, eps=0.5, opt=2.0, beta_rule="2alpha", fast=fast)
        assert res.valid, res.errors
        np.testing.assert_array_equal(res.outcome.rejected, [0, 1, 0, 0, 0, 0, 0, 0, 1, 0])
        assert res.outcome.machine[1] == 0 and res.outcome.reject_step[1] == 6  # late, at job 6's arrival
        assert res.outcome.machine[8] == -1 and res.outcome.reject_step[8] == 8  # on arrival
        assert res.objective == 32


@settings(max_examples=40, deadline=None)
@given(inst=instances(max_m=4, max_n=10, unit=True))
def test_prefix_unit_opt_is_the_power_of_two_above_the_prefix_optimum(inst):
    tracker = PrefixUnitOpt(inst.m)
    order = inst.arrival_order()
    for k, j in enumerate(order.tolist()):
        T = tracker.add(k, inst.eligible(j))
        sub = order[: k + 1].tolist()
        prefix = Instance.from_lists(inst.m, [0] * len(sub), [1] * len(sub), [inst.eligible(q).tolist() for q in sub])
        opt = schedbench.opt_makespan(prefix).value
        assert T == 2 ** math.ceil(math.log2(opt))


@pytest.mark.parametrize("oracle", ["phases", "doubling"])
def test_lb_unit_reject_without_oracle_runs_valid_and_does_not_need_opt(oracle):
    inst = get_family("random-restricted").make(1, 4, m=32, n=2000, d=2)
    res = schedbench.run("lb-unit-reject", inst, eps=0.25, oracle=oracle, alpha_rule="safe", solve=False)
    assert res.opt is None  # without the ratio's solve, nothing was solved for it: it needs no T*
    assert res.status in ("ok", "budget_violated") and res.rejected_frac_max_prefix <= 0.25 + 1e-12
    opt = schedbench.opt_makespan(inst).value
    alpha = 2 * math.ceil(math.log2(4))
    assert res.objective <= 4 * alpha * opt  # spec §2.3: ≤ 2α·T_last ≤ 4α·OPT


def test_guarded_algorithms_never_violate_the_budget():
    inst = get_family("random-restricted").make(2, 5, m=8, n=300, d=2, sizes="pow2", max_size_exp=4)
    for name, params in (("lb-general-reject", {"beta_rule": "2alpha", "guard": "on"}), ("greedy-cap", {"kappa": 1.0})):
        for eps in (0.05, 0.2):
            res = schedbench.run(name, inst, eps=eps, opt=1.0, **params)  # T* far too small: many rejections
            assert res.status == "ok" and res.rejected_frac_max_prefix <= eps + 1e-12
            assert res.counters["guard_fires"] > 0


def test_theorem_8_2_late_rejection_stays_capped_where_immediate_rejection_grows():
    # LB-B (g = 4) against immediate-reject greedy-cap and lb-general-reject with the spec's own
    # practical constants (α = 3, β = 2; T = 2T*, so its load is capped at 2β·OPT = 4·OPT)
    def ratio(alg, K, **params):
        r = schedbench.run_adversary(
            "lb-b", alg, eps=0.25, adversary_params={"K": K, "g": 4}, algorithm_params=params, solve=False
        )
        assert r.status == "ok", r.errors
        return r.objective / r.claimed_opt

    capped = [ratio("lb-general-reject", K, alpha=3, beta=2) for K in (5, 7)]
    greedy_cap = [ratio("greedy-cap", K) for K in (5, 7)]
    assert all(x <= 4.0 for x in capped)
    assert greedy_cap[1] > greedy_cap[0] and greedy_cap[1] > 4.0  # 3.375 -> 4.297
