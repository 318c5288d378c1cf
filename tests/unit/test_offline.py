"""Offline optimum against brute force, the flow bound and a constructed OPT."""

import math

import numpy as np

from hypothesis import given

from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import makespan_lower_bound, opt_makespan
from schedbench.scheduling.registry import get_family

from ..conftest import brute_force_makespan
from ..strategies import instances


@given(instances(max_m=3, max_n=6, unit=True))
def test_unit_sizes_exact_by_flow_equals_brute_force(inst):
    res = opt_makespan(inst)
    assert res.status == "optimal" and res.solver == "maxflow"
    assert res.value == brute_force_makespan(inst)


@given(instances(max_m=3, max_n=6, unit=False))
def test_sized_milp_equals_brute_force_and_bounds_hold(inst):
    res = opt_makespan(inst, time_limit=30)
    opt = brute_force_makespan(inst)
    assert res.status == "optimal"
    assert res.value == opt
    lb = makespan_lower_bound(inst)
    trivial = max(int(inst.size.max()), math.ceil(inst.size.sum() / inst.m))
    assert trivial <= lb <= opt


def test_lp_bound_beats_trivial_bound_on_unbalanced_eligibility():
    # 4 unit jobs that can only use machine 0 or 1, plus idle machines 2..5: trivial bound 1,
    # LP/flow bound = OPT = 2.
    inst = Instance.from_lists(6, [0] * 4, [1] * 4, [[0, 1]] * 4)
    assert makespan_lower_bound(inst) == 2
    assert opt_makespan(inst).value == 2


def test_anr_tree_opt_is_one():
    inst = get_family("anr-tree").make(0, 0, K=6)
    res = opt_makespan(inst)
    assert (res.value, res.status) == (1.0, "optimal")


def test_milp_needed_when_greedy_misses_the_bound():
    # Sizes 3,3,2,2,2 on two machines: largest-first gives 7, OPT = 6 (3+3 | 2+2+2).
    inst = Instance.from_lists(2, [0] * 5, [3, 3, 2, 2, 2], [[0, 1]] * 5)
    res = opt_makespan(inst)
    assert res.solver == "highs-milp" and res.status == "optimal" and res.value == 6


def test_time_limit_reports_timeout_with_consistent_bounds():
    # A random sized instance where the MILP is needed; a 1 ms limit stops HiGHS early.
    inst = get_family("random-restricted").make(3, 11, m=30, n=400, d=3, sizes="pow2",
                                                max_size_exp=9)
    res = opt_makespan(inst, time_limit=1e-3)
    assert res.status == "timeout", res
    assert res.lower_bound <= res.value
    assert res.denominator == res.lower_bound


def test_solver_banner_does_not_reach_stdout(capfd):
    inst = Instance.from_lists(2, [0] * 5, [3, 3, 2, 2, 2], [[0, 1]] * 5)
    assert opt_makespan(inst).solver == "highs-milp"
    assert "HiGHS" not in capfd.readouterr().out


def test_milp_after_another_highs_model_in_the_same_process():
    # Regression: HiGHS's global thread pool made the MILP fail (reported as 'timeout') when an
    # LP with a different thread setting had run first in the process.
    from schedbench.queueing.bipartite.simulate import neighbors_csr
    from schedbench.queueing.bipartite.oracles import t_star_graph

    mu = np.array([4.0, 1.0, 1.0])
    ip, ix, _ = neighbors_csr("complete", 3, 2, mu)
    assert t_star_graph(mu, [1.0, 1.0], ip, ix) == 0.25
    inst = Instance.from_lists(2, [0] * 5, [3, 3, 2, 2, 2], [[0, 1]] * 5)
    res = opt_makespan(inst)
    assert (res.status, res.value) == ("optimal", 6.0)
