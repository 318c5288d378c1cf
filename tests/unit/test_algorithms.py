"""Greedy and lb-unit-reject against constructed optima and hand-checked runs."""

import pytest
from hypothesis import given, strategies as st

import schedbench
from schedbench.scheduling.algorithms.lb_unit_reject import alpha_for
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import opt_makespan
from schedbench.scheduling.registry import get_family

from ..strategies import instances


@pytest.mark.parametrize("K", range(1, 9))
def test_greedy_on_anr_tree_reaches_K_plus_one_while_opt_is_one(K):
    inst = get_family("anr-tree").make(0, 0, K=K)
    assert inst.m == 2**K
    res = schedbench.run("greedy", inst, opt=opt_makespan(inst))
    assert res.valid
    assert res.objective == K + 1
    assert res.opt.value == 1 and res.opt.status == "optimal"
    assert res.ratio == K + 1


def test_greedy_on_anr_tree_without_final_job_reaches_K():
    inst = get_family("anr-tree").make(0, 0, K=5, final_job=False)
    assert schedbench.run("greedy", inst).objective == 5


def test_greedy_breaks_ties_to_lowest_index():
    inst = Instance.from_lists(3, [0, 0, 0], [1, 1, 1], [[2, 1], [1, 2], [2, 0]])
    res = schedbench.run("greedy", inst, fast=False)
    assert res.outcome.machine.tolist() == [1, 2, 0]


@pytest.mark.parametrize(
    "eps, paper, safe", [(0.5, 1, 2), (0.25, 2, 4), (0.2, 3, 6), (0.125, 3, 6), (0.1, 4, 8), (0.9, 1, 2)]
)
def test_alpha(eps, paper, safe):
    assert alpha_for(eps, "paper") == paper and alpha_for(eps, "safe") == safe


def test_lb_unit_reject_hand_checked_cap():
    # One machine, T* given as 2, eps = 0.25 -> alpha = 2, cap = 4: jobs 5 and 6 are rejected.
    inst = Instance.from_lists(1, [0] * 6, [1] * 6, [[0]] * 6)
    res = schedbench.run("lb-unit-reject", inst, eps=0.25, opt=2.0)
    assert res.outcome.machine.tolist() == [0, 0, 0, 0, -1, -1]
    assert res.objective == 4
    assert res.rejected_frac == pytest.approx(2 / 6)
    assert res.status == "budget_violated"  # T* = 2 was a lie (OPT = 6): no guarantee applies


@pytest.mark.parametrize("K", [4, 6, 8])
@pytest.mark.parametrize("eps", [0.5, 0.25, 0.125, 0.0625])
@pytest.mark.parametrize("rule", ["paper", "safe"])
def test_lb_unit_reject_on_anr_tree_matches_hand_count(K, eps, rule):
    # Survivors reach load alpha and every later round's pair job (and the final job) is
    # rejected: objective min(alpha, K+1); rejections sum_{r>alpha} 2^(K-r) + 1 if alpha <= K.
    inst = get_family("anr-tree").make(0, 0, K=K)
    res = schedbench.run("lb-unit-reject", inst, eps=eps, alpha_rule=rule)
    alpha = alpha_for(eps, rule)
    assert res.objective == min(alpha, K + 1)
    rejected = sum(2 ** (K - r) for r in range(alpha + 1, K + 1)) + (1 if alpha <= K else 0)
    assert res.outcome.rejected.sum() == rejected


@given(instances(max_m=4, max_n=12, unit=True), st.sampled_from([0.5, 0.25, 0.125]), st.sampled_from(["paper", "safe"]))
def test_lb_unit_reject_load_within_cap_and_at_least_opt(inst, eps, rule):
    opt = opt_makespan(inst)
    res = schedbench.run("lb-unit-reject", inst, eps=eps, opt=opt, alpha_rule=rule)
    assert res.status in ("ok", "budget_violated")
    assert res.objective <= alpha_for(eps, rule) * opt.value  # the §2.1 guarantee
    assert res.objective >= opt.value  # cap >= T*: ALG >= OPT


@given(instances(max_m=6, max_n=40, unit=True), st.sampled_from([0.5, 0.25, 0.125, 0.0625]))
def test_lb_unit_reject_safe_alpha_respects_budget_at_every_prefix(inst, eps):
    """Spec §2.1 proves rejections <= eps * arrivals at every prefix for alpha = 2*ceil(log2 1/eps)."""
    res = schedbench.run("lb-unit-reject", inst, eps=eps, alpha_rule="safe")
    assert res.valid, res.errors


def test_fast_path_rejects_on_non_unit_instance():
    inst = Instance.from_lists(1, [0], [2], [[0]])
    with pytest.raises(ValueError, match="unit sizes only"):
        schedbench.run("lb-unit-reject", inst, eps=0.25, opt=2.0)


def test_missing_eps_and_unknown_parameter_are_named():
    inst = Instance.from_lists(1, [0], [1], [[0]])
    with pytest.raises(ValueError, match="eps must be a number in"):
        schedbench.run("lb-unit-reject", inst, opt=1.0)
    with pytest.raises(ValueError, match="has no parameter 'alpha'"):
        schedbench.run("lb-unit-reject", inst, eps=0.5, opt=1.0, alpha=3)
    with pytest.raises(KeyError, match="unknown algorithm 'gredy'"):
        schedbench.run("gredy", inst)
