"""MaxFlowTime offline optimum (spec §8.2): unit matching and MIP against brute force, the
migratory bound below the MIP, constructed instances, time limits and bad arguments."""

import itertools
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings

from schedbench.hall.effort import Effort
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import max_flow_lower_bound, opt_max_flow, solve_opt
from schedbench.scheduling.offline.makespan import SolverLimitError
from schedbench.scheduling.offline import maxflow as mf

from ..bruteforce import unit_jobs_fit
from ..strategies import instances


def brute_force_unit(inst: Instance) -> int:
    """Least T such that the unit jobs take distinct (machine, slot) pairs with
    r_j ≤ slot ≤ r_j + T − 1: plain backtracking, independent of the solver."""

    def fits(T):
        return unit_jobs_fit(inst, lambda j: range(int(inst.release[j]), int(inst.release[j]) + T))

    T = 1
    while not fits(T):
        T += 1
    return T


def brute_force_sized(inst: Instance) -> int:
    """min over assignments of the max flow of FIFO on each machine (with deadlines r_j + T,
    EDF is FIFO, and EDF is optimal on one preemptive machine)."""
    best = None
    for choice in itertools.product(*(inst.eligible(j).tolist() for j in range(inst.n))):
        worst = 0
        for i in set(choice):
            t = 0
            for j in sorted((j for j in range(inst.n) if choice[j] == i), key=lambda j: (int(inst.release[j]), j)):
                t = max(t, int(inst.release[j])) + int(inst.size[j])
                worst = max(worst, t - int(inst.release[j]))
        best = worst if best is None else min(best, worst)
    return best


def _force(inst, path, **kw):
    t0 = time.perf_counter()
    dl = mf._Deadlines(inst, "flow")
    if path == "matching":
        return mf._opt_unit(inst, dl, t0, Effort(None, 600), counting=False)
    return mf._opt_sized(inst, dl, t0, Effort(None, 600), 0, **kw)


@settings(max_examples=40, deadline=None)
@given(instances(max_m=3, max_n=6, unit=True))
def test_unit_matching_equals_brute_force(inst):
    opt = brute_force_unit(inst)
    res = opt_max_flow(inst)
    assert (res.status, res.value, res.lower_bound) == ("optimal", opt, opt)
    forced = _force(inst, "matching")  # no counting bound: the matching decides every probe
    assert (forced.status, forced.value) == ("optimal", opt)


@settings(max_examples=25, deadline=None)
@given(instances(max_m=3, max_n=6, unit=True))
def test_mip_equals_matching_on_unit_jobs(inst):
    opt = opt_max_flow(inst).value
    mip = _force(inst, "mip", counting=False, migratory=False)  # the MIP decides every probe
    assert (mip.status, mip.value) == ("optimal", opt)
    assert max_flow_lower_bound(inst) == opt  # the migratory bound is exact for unit jobs


@settings(max_examples=25, deadline=None)
@given(instances(max_m=3, max_n=5, unit=False, max_size=4))
def test_sized_opt_equals_brute_force_and_bound_below(inst):
    opt = brute_force_sized(inst)
    res = opt_max_flow(inst, time_limit=120)
    assert (res.status, res.value) == ("optimal", opt)
    lb = max_flow_lower_bound(inst)
    assert int(inst.size.max()) <= lb <= opt
    mip = _force(inst, "mip", counting=False, migratory=False)
    assert (mip.status, mip.value) == ("optimal", opt)


def test_three_unit_jobs_on_one_machine():
    inst = Instance.from_lists(1, [0, 0, 0], [1, 1, 1], [[0]] * 3)
    res = opt_max_flow(inst)
    assert (res.value, res.status) == (3.0, "optimal")


def test_disjoint_machine_sets():
    # Machine 0: three jobs at time 0 (OPT 3 there); machine 1: one job (flow 1).
    inst = Instance.from_lists(2, [0, 0, 0, 0], [1, 1, 1, 1], [[0], [0], [0], [1]])
    assert opt_max_flow(inst).value == 3.0
    # A flexible job goes to the idle machine: OPT 2.
    inst = Instance.from_lists(2, [0, 0, 0, 0], [1, 1, 1, 1], [[0], [0], [0, 1], [1]])
    assert opt_max_flow(inst).value == 2.0


def test_matching_beats_the_list_schedule():
    # The list schedule sends job 0 (eligible 0, 1) to machine 0 (tie), where jobs 1 and 2 must
    # also go: max flow 3. OPT puts job 0 on machine 1: 2.
    inst = Instance.from_lists(2, [0, 0, 0], [1] * 3, [[0, 1], [0], [0]])
    _, completion = mf._list_schedule(inst)
    assert int(completion.max()) == 3
    res = opt_max_flow(inst)
    assert (res.value, res.status) == (2.0, "optimal") and brute_force_unit(inst) == 2
    forced = _force(inst, "matching")
    assert (forced.value, forced.solver) == (2.0, "hopcroft-karp")


def test_sized_needs_the_right_assignment():
    # Machine 0 must take the size-2 jobs 0, 1 (flow 4 there); the unit jobs may go elsewhere.
    inst = Instance.from_lists(3, [0, 0, 0, 0], [2, 2, 1, 1], [[0], [0], [0, 1], [0, 2]])
    res = opt_max_flow(inst)
    assert (res.status, res.value) == ("optimal", 4.0) == ("optimal", brute_force_sized(inst))
    # Release the size-2 jobs apart: OPT 2 needs job 2 on machine 1 and job 3 on machine 2.
    inst = Instance.from_lists(3, [0, 2, 0, 0], [2, 2, 1, 1], [[0], [0], [0, 1], [0, 2]])
    res = opt_max_flow(inst)
    assert (res.status, res.value) == ("optimal", 2.0) == ("optimal", brute_force_sized(inst))


def test_migratory_bound_is_below_the_non_migratory_opt():
    # Three size-2 jobs on two machines at time 0: migration gives 3, OPT needs 4.
    inst = Instance.from_lists(2, [0, 0, 0], [2, 2, 2], [[0, 1]] * 3)
    assert max_flow_lower_bound(inst) == 3
    res = opt_max_flow(inst)
    assert (res.status, res.value, res.solver) == ("optimal", 4.0, "highs-mip")


def test_solve_opt_dispatches_every_flow_problem():
    inst = Instance.from_lists(1, [0, 0, 0], [1, 1, 1], [[0]] * 3, w_flow=[1, 2, 4])
    assert solve_opt(inst, "maxflow").value == 3.0
    # weights 1, 2, 4: the heavy jobs first, flows 3, 2, 1 → max(3, 4, 4) = 4
    assert (solve_opt(inst, "wtdmaxflow").status, solve_opt(inst, "wtdmaxflow").value) == ("optimal", 4.0)
    assert solve_opt(inst, "genwtd").value == 4.0
    assert solve_opt(inst, "stretch").value == 3.0  # unit jobs: stretch = flow


def _unit_poisson(n, m, rho, seed):
    rng = np.random.default_rng(seed)
    counts = rng.poisson(rho * m, size=int(2 * n / (rho * m)) + 10)
    release = np.repeat(np.arange(counts.size), counts)[:n]
    eligible = np.array([rng.choice(m, 2, replace=False) for _ in range(n)])
    return Instance(
        m=m,
        release=release,
        size=np.ones(n, dtype=np.int64),
        indptr=np.arange(0, 2 * n + 1, 2),
        indices=eligible.ravel(),
        w_flow=None,
        w_reject=None,
    )


def test_unit_matching_agrees_with_migratory_flow_on_a_medium_instance():
    inst = _unit_poisson(1500, 10, 1.0, 3)
    res = opt_max_flow(inst)
    assert res.status == "optimal" and res.solver == "hopcroft-karp"
    assert res.value == max_flow_lower_bound(inst)


def test_time_limit_reports_timeout_with_consistent_bounds():
    inst = Instance.from_lists(3, [0] * 12 + [1] * 6, list(range(1, 7)) * 3, [[0, 1], [1, 2], [0, 2]] * 6)
    opt_max_flow(inst, time_limit=120)  # compile / load the numba cache
    full = opt_max_flow(inst, time_limit=120)
    assert (full.status, full.value) == ("optimal", 20.0)
    res = opt_max_flow(inst, time_limit=1e-4)  # the bounds alone take longer
    assert res.status == "timeout", res
    assert res.lower_bound <= full.value <= res.value
    assert res.denominator == res.lower_bound


def test_unit_time_limit_covers_the_matching():
    inst = _unit_poisson(20000, 20, 1.0, 1)
    opt_max_flow(Instance.from_lists(1, [0, 0], [1, 1], [[0], [0]]))
    t0 = time.perf_counter()
    res = opt_max_flow(inst, time_limit=1e-4)
    assert time.perf_counter() - t0 < 1.0
    assert res.status == "timeout", res
    assert 1 <= res.lower_bound <= opt_max_flow(inst).value <= res.value


def test_mip_too_large_gives_a_bound(monkeypatch):
    monkeypatch.setattr(mf, "MAX_MIP_ROWS", 0)
    inst = Instance.from_lists(2, [0, 0, 0], [2, 2, 2], [[0, 1]] * 3)
    res = opt_max_flow(inst)
    assert res.status == "bound" and math.isnan(res.value) and res.lower_bound == 3
    assert "MIP too large" in res.solver


def test_slot_limit_refuses_clearly(monkeypatch):
    monkeypatch.setattr(mf, "MAX_SLOTS", 2)
    inst = Instance.from_lists(2, [0, 0, 0], [1] * 3, [[0, 1], [0], [0]])
    with pytest.raises(SolverLimitError, match="field 'release'.*limit 2"):
        opt_max_flow(inst)


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), float("inf"), "10", None, True])
def test_time_limit_must_be_finite_positive(value):
    inst = Instance.from_lists(1, [0], [1], [[0]])
    with pytest.raises(ValueError, match="'time_limit'"):
        opt_max_flow(inst, time_limit=value)


@pytest.mark.parametrize("value", ["weight", "Flow", "maxflow", None, 1])
def test_objective_must_be_known(value):
    inst = Instance.from_lists(1, [0], [1], [[0]])
    with pytest.raises(ValueError, match="'objective'"):
        opt_max_flow(inst, objective=value)


def test_a_highs_solve_error_is_retried_without_presolve_and_the_optimum_is_right():
    """An 8-job instance on which HiGHS ends the feasibility MIP with "Solve error" (found by
    hypothesis); the retry without presolve gives the optimum, checked by brute force: on one
    machine FIFO minimises the maximum flow time, so OPT is the best assignment's largest FIFO
    flow."""
    release = [0, 0, 2, 2, 3, 3, 3, 3]
    size = [4, 2, 2, 4, 2, 4, 3, 4]
    eligible = [[0, 1], [0], [0, 1, 2], [0, 1], [0], [2], [0, 1, 2], [0, 1]]
    inst = Instance.from_lists(3, release, size, eligible)
    best = None
    for choice in itertools.product(*eligible):
        worst = 0
        for i in range(3):
            t = 0
            for j in (k for k in range(8) if choice[k] == i):  # release order, ties by index
                t = max(t, release[j]) + size[j]
                worst = max(worst, t - release[j])
        best = worst if best is None else min(best, worst)
    res = solve_opt(inst, "wtdmaxflow")
    assert res.status == "optimal" and res.value == best == 7
