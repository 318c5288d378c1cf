"""Weighted max flow time, GenWtd and max stretch optima (spec §8.3): the real-valued search
over the candidate values w_j·f, the unit matching and the MIP against brute force in exact
rational arithmetic, the migratory bound below OPT, and routing by the problem table."""

import itertools
import math
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedbench.hall.effort import Effort
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import max_flow_lower_bound, opt_max_flow, solve_opt
from schedbench.scheduling.offline import maxflow as mf
from schedbench.scheduling.offline.makespan import SolverLimitError

from ..bruteforce import unit_jobs_fit
from ..strategies import instances

WEIGHTS = (1.0, 2.0, 4.0, 0.5, 1.0 / 3.0)


@st.composite
def weighted(draw, unit, max_n, max_m=3, max_size=4, weights=WEIGHTS):
    inst = draw(instances(max_m=max_m, max_n=max_n, unit=unit, max_size=max_size))
    w = draw(st.lists(st.sampled_from(weights), min_size=inst.n, max_size=inst.n))
    return Instance.from_lists(
        inst.m, inst.release.tolist(), inst.size.tolist(), [inst.eligible(j).tolist() for j in range(inst.n)], w_flow=w
    )


def _weights(inst, objective):
    if objective == "stretch":
        return [Fraction(1.0 / float(p)) for p in inst.size]  # the float weights, exactly
    return [Fraction(float(x)) for x in inst.w_flow]


def brute_force_unit(inst, objective="weighted"):
    """Least candidate T = w_j·f (f ≤ n suffices) such that the unit jobs take distinct
    (machine, slot) pairs with w_j·(slot + 1 − r_j) ≤ T; exact rational arithmetic."""
    n = inst.n
    W = _weights(inst, objective)

    def fits(T):
        return unit_jobs_fit(
            inst,
            lambda j: [
                t
                for t in range(int(inst.release[j]), int(inst.release[j]) + n)
                if W[j] * (t + 1 - int(inst.release[j])) <= T
            ],
        )

    for T in sorted({W[j] * f for j in range(n) for f in range(1, n + 1)}):
        if fits(T):
            return T
    raise AssertionError("unreachable")


def _edf_feasible(jobs, release, size, W, T):
    """One preemptive machine, unit steps, earliest real deadline r_j + T/w_j first."""
    dl = {j: release[j] + T / W[j] for j in jobs}
    rem = {j: size[j] for j in jobs}
    t = min(release[j] for j in jobs)
    while rem:
        ready = [j for j in rem if release[j] <= t]
        if not ready:
            t = min(release[j] for j in rem)
            continue
        j = min(ready, key=lambda j: (dl[j], j))
        rem[j] -= 1
        t += 1
        if rem[j] == 0:
            del rem[j]
            if t > dl[j]:
                return False
    return True


def brute_force_sized(inst, objective):
    """min over assignments of max over machines of that machine's optimum, found by binary
    search over its candidates w_j·f (f ≤ max r + Σp) with EDF (optimal on one machine)."""
    n = inst.n
    W = _weights(inst, objective)
    release = [int(x) for x in inst.release]
    size = [int(x) for x in inst.size]
    horizon = max(release) + sum(size)
    memo = {}

    def machine_opt(jobs):
        if jobs not in memo:
            cands = sorted({W[j] * f for j in jobs for f in range(size[j], horizon + 1)})
            lo, hi = 0, len(cands) - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if _edf_feasible(jobs, release, size, W, cands[mid]):
                    hi = mid
                else:
                    lo = mid + 1
            memo[jobs] = cands[lo]
        return memo[jobs]

    best = None
    for choice in itertools.product(*(inst.eligible(j).tolist() for j in range(n))):
        worst = max(machine_opt(frozenset(j for j in range(n) if choice[j] == i)) for i in set(choice))
        best = worst if best is None else min(best, worst)
    return best


def _force(inst, objective, path, **kw):
    t0 = time.perf_counter()
    dl = mf._Deadlines(inst, objective)
    if path == "matching":
        return mf._opt_unit(inst, dl, t0, Effort(None, 600), counting=False)
    return mf._opt_sized(inst, dl, t0, Effort(None, 600), 0, **kw)


# ----------------------------------------------------------------------------- the candidate grid
def test_real_grid_counts_and_medians_match_an_explicit_list():
    w = np.array([1.0, 4.0, 0.5, 1.0 / 3.0, 1.0 / 3.0, 0.7])
    grid = mf._RealGrid(w, "w_flow")
    explicit = sorted(float(x) * f for x in set(w.tolist()) for f in range(1, 200))
    values = sorted(set(explicit))
    for lo, hi in [(1.0, 5.0), (1.0 / 3.0, 4.0), (2.1, 2.2), (0.7, 0.7), (3.0, 3.5), (10.0, 40.0)]:
        inside = [v for v in explicit if lo <= v < hi]
        assert grid.count(lo, hi) == len(inside)
        if inside:
            assert grid.median(lo, hi) == inside[len(inside) // 2]
        assert grid.first_at_least(lo) == min(v for v in values if v >= lo)
        assert grid.next_above(lo) == min(v for v in values if v > lo)
        assert grid.below(hi) == max(v for v in values if v < hi)
    # windows: the largest f with w*f <= T, exactly (1/3 * 3 == 1.0 in floats)
    assert grid.window(1.0).tolist() == [1, 0, 2, 3, 3, 1]
    assert grid.window(0.99).tolist() == [0, 0, 1, 2, 2, 1]


# ----------------------------------------------------------------------------- unit jobs
@settings(max_examples=60, deadline=None)
@given(weighted(unit=True, max_n=6))
def test_weighted_unit_equals_brute_force(inst):
    opt = brute_force_unit(inst)
    res = opt_max_flow(inst, objective="weighted")
    assert (res.status, res.value, res.lower_bound) == ("optimal", float(opt), float(opt))
    forced = _force(inst, "weighted", "matching")  # no counting bound: the matching decides
    assert (forced.status, forced.value) == ("optimal", float(opt))
    assert opt_max_flow(inst, objective="genwtd").value == float(opt)


@settings(max_examples=20, deadline=None)
@given(weighted(unit=True, max_n=6))
def test_weighted_mip_equals_matching_on_unit_jobs(inst):
    opt = opt_max_flow(inst, objective="weighted").value
    mip = _force(inst, "weighted", "mip", counting=False, migratory=False)
    assert (mip.status, mip.value) == ("optimal", opt)
    assert max_flow_lower_bound(inst, "weighted") == opt  # exact for unit jobs


def test_heavy_job_goes_first():
    # One machine, three unit jobs at 0 with weights 1, 2, 4: heavy first gives max(3, 4, 4).
    inst = Instance.from_lists(1, [0, 0, 0], [1, 1, 1], [[0]] * 3, w_flow=[1, 2, 4])
    res = opt_max_flow(inst, objective="weighted")
    assert (res.status, res.value) == ("optimal", 4.0)
    # fractional weights: heaviest first gives 1·1, 0.5·2, (1/3)·3 — all exactly 1.0 in floats
    inst = Instance.from_lists(1, [0, 0, 0], [1, 1, 1], [[0]] * 3, w_flow=[1 / 3, 0.5, 1])
    res = opt_max_flow(inst, objective="weighted")
    assert (res.status, res.value) == ("optimal", 1.0) and float(brute_force_unit(inst)) == 1.0


# ----------------------------------------------------------------------------- sized jobs
@settings(max_examples=40, deadline=None)
@given(weighted(unit=False, max_n=5, max_size=4))
def test_stretch_and_weighted_sized_equal_brute_force(inst):
    for objective in ("stretch", "weighted"):
        opt = float(brute_force_sized(inst, objective))
        res = opt_max_flow(inst, objective=objective, time_limit=120)
        assert (res.status, res.value) == ("optimal", opt), objective
        lb = max_flow_lower_bound(inst, objective)
        w = 1.0 / inst.size if objective == "stretch" else inst.w_flow
        assert float(np.max(w * inst.size)) <= lb <= opt
        mip = _force(inst, objective, "mip", counting=False, migratory=False)
        assert (mip.status, mip.value) == ("optimal", opt), objective


def test_stretch_short_job_first():
    # One machine, sizes 1 and 3 at time 0: short first gives stretches 1 and 4/3.
    inst = Instance.from_lists(1, [0, 0], [3, 1], [[0], [0]])
    res = opt_max_flow(inst, objective="stretch")
    assert (res.status, res.value) == ("optimal", (1.0 / 3.0) * 4)
    assert res.value == float(brute_force_sized(inst, "stretch"))
    assert solve_opt(inst, "stretch").value == res.value
    assert opt_max_flow(inst).value == 4.0  # max flow: either order gives 4


def test_stretch_migratory_bound_below_opt():
    # Three size-2 jobs and two unit jobs on two machines: migration helps.
    inst = Instance.from_lists(2, [0, 0, 0, 1, 1], [2, 2, 2, 1, 1], [[0, 1]] * 5)
    lb = max_flow_lower_bound(inst, "stretch")
    res = opt_max_flow(inst, objective="stretch")
    assert res.status == "optimal" and 1.0 <= lb <= res.value
    assert res.value == float(brute_force_sized(inst, "stretch"))


# ----------------------------------------------------------------------------- consistency
@settings(max_examples=25, deadline=None)
@given(instances(max_m=3, max_n=6, max_size=4))
def test_weights_one_give_the_flow_answer(inst):
    flow = opt_max_flow(inst, time_limit=120)
    for objective in ("weighted", "genwtd"):
        res = opt_max_flow(inst, objective=objective, time_limit=120)
        assert (res.status, res.value, res.lower_bound) == (flow.status, flow.value, flow.lower_bound)
    assert max_flow_lower_bound(inst, "weighted") == max_flow_lower_bound(inst)
    if inst.unit_sizes:
        assert opt_max_flow(inst, objective="stretch").value == flow.value


def test_genwtd_ignores_w_reject():
    inst = Instance.from_lists(2, [0, 0, 0, 1], [1, 2, 1, 1], [[0], [0, 1], [1], [0]], w_flow=[1, 4, 2, 0.5])
    heavy = Instance.from_lists(
        2, [0, 0, 0, 1], [1, 2, 1, 1], [[0], [0, 1], [1], [0]], w_flow=[1, 4, 2, 0.5], w_reject=[100, 0.01, 3, 7]
    )
    a, b = solve_opt(inst, "genwtd"), solve_opt(heavy, "genwtd")
    assert (a.status, a.value) == (b.status, b.value) == ("optimal", solve_opt(inst, "wtdmaxflow").value)
    assert a.value == float(brute_force_sized(inst, "weighted"))


def test_weighted_time_limit_reports_timeout_with_consistent_bounds():
    rng = np.random.default_rng(5)
    inst = Instance.from_lists(
        3,
        [0] * 12 + [1] * 6,
        list(range(1, 7)) * 3,
        [[0, 1], [1, 2], [0, 2]] * 6,
        w_flow=rng.choice([1.0, 2.0, 4.0], 18).tolist(),
    )
    full = opt_max_flow(inst, objective="weighted", time_limit=120)
    res = opt_max_flow(inst, objective="weighted", time_limit=1e-4)
    assert res.status == "timeout", res
    assert res.lower_bound <= full.lower_bound <= full.value <= res.value


def test_unit_weighted_medium_instance_agrees_with_migratory_flow():
    rng = np.random.default_rng(2)
    n, m = 1200, 10
    counts = rng.poisson(0.95 * m, size=400)
    release = np.repeat(np.arange(counts.size), counts)[:n]
    elig = np.array([rng.choice(m, 2, replace=False) for _ in range(n)])
    inst = Instance(
        m=m,
        release=release,
        size=np.ones(n, dtype=np.int64),
        indptr=np.arange(0, 2 * n + 1, 2),
        indices=elig.ravel(),
        w_flow=rng.choice([1.0, 4.0, 16.0], n),
        w_reject=None,
    )
    res = opt_max_flow(inst, objective="weighted")
    assert res.status == "optimal" and res.solver == "hopcroft-karp"
    assert res.value == max_flow_lower_bound(inst, "weighted")
    # the value is a real schedule's objective: some w_j times an integer flow
    assert any(float(w) * round(res.value / w) == res.value for w in (1.0, 4.0, 16.0))


# ----------------------------------------------------------------------------- arguments
def test_spread_out_weights_refuse_clearly():
    inst = Instance.from_lists(1, [0, 0], [1, 1], [[0], [0]], w_flow=[1.0, 1e-300])
    with pytest.raises(SolverLimitError, match="field 'w_flow'"):
        opt_max_flow(inst, objective="weighted")


@pytest.mark.parametrize("value", ["wtdmaxflow", "max_stretch", "", None])
def test_bad_objective_names_the_field(value):
    inst = Instance.from_lists(1, [0], [1], [[0]])
    with pytest.raises(ValueError, match="argument 'objective' must be one of 'flow', 'weighted', 'genwtd', 'stretch'"):
        opt_max_flow(inst, objective=value)
    with pytest.raises(ValueError, match="'objective'"):
        max_flow_lower_bound(inst, objective=value)


def test_solve_opt_routes_by_the_flow_weight():
    assert set(mf.FLOW_OBJECTIVE.values()) <= set(mf.OBJECTIVE_WEIGHT)
    assert all(mf.OBJECTIVE_WEIGHT[o] == w for w, o in mf.FLOW_OBJECTIVE.items())
    inst = Instance.from_lists(1, [0, 0], [2, 1], [[0], [0]], w_flow=[3.0, 1.0])
    # maxflow: 3; wtdmaxflow: the heavy size-2 job first → max(3·2, 1·3) = 6; stretch: 1.5
    got = {p: solve_opt(inst, p).value for p in ("maxflow", "wtdmaxflow", "genwtd", "stretch")}
    assert got == {"maxflow": 3.0, "wtdmaxflow": 6.0, "genwtd": 6.0, "stretch": 1.5}
    assert not math.isnan(solve_opt(inst, "stretch").lower_bound)


@settings(max_examples=40, deadline=None)
@given(weighted(unit=False, max_n=5, max_size=4), st.sampled_from(["maxflow", "wtdmaxflow", "genwtd", "stretch"]))
def test_the_trivial_flow_bound_is_max_weight_times_size_and_below_opt(inst, problem):
    """The trivial bound of the flow problems (offline/flow_bound.py): max_j w_j·p_j with the
    problem's flow weight (1 for max flow and for stretch), never above the exact OPT."""
    from schedbench.scheduling.offline import flow_lower_bound

    res = flow_lower_bound(inst, problem)
    w = {"maxflow": [1.0] * inst.n, "stretch": [1.0 / p for p in inst.size]}.get(problem, list(inst.w_flow))
    assert res.status == "bound" and math.isnan(res.value)
    assert res.lower_bound == pytest.approx(max(wj * pj for wj, pj in zip(w, inst.size)))
    opt = solve_opt(inst, problem)
    assert opt.status == "optimal" and res.lower_bound <= opt.value + 1e-9


def _migratory_feasible(inst, W, T) -> bool:
    """Slot by slot: can every job finish within F_j ≤ T / w_j when a job may run on any eligible
    machine in each slot, one machine at a time (migratory, preemptive)? An Edmonds–Karp max flow
    on source → job (p_j) → (job, slot) (1) → (machine, slot) (1) → sink."""
    from collections import defaultdict, deque

    cap = defaultdict(int)
    adj = defaultdict(set)

    def edge(a, b, c):
        cap[a, b] += c
        adj[a].add(b)
        adj[b].add(a)

    need = 0
    for j in range(inst.n):
        last = int(inst.release[j]) + math.floor(T / W[j])  # slots r_j .. last - 1
        edge("s", ("j", j), int(inst.size[j]))
        need += int(inst.size[j])
        for t in range(int(inst.release[j]), last):
            edge(("j", j), ("jt", j, t), 1)
            for i in inst.eligible(j).tolist():
                edge(("jt", j, t), ("it", i, t), 1)
                if (("it", i, t), "t") not in cap:  # each (machine, slot) serves one job
                    edge(("it", i, t), "t", 1)
    flow = 0
    while True:
        parent = {"s": None}
        queue = deque(["s"])
        while queue and "t" not in parent:
            a = queue.popleft()
            for b in adj[a]:
                if b not in parent and cap[a, b] > 0:
                    parent[b] = a
                    queue.append(b)
        if "t" not in parent:
            return flow == need
        b = "t"
        while parent[b] is not None:
            a = parent[b]
            cap[a, b] -= 1
            cap[b, a] += 1
            b = a
        flow += 1


# Instances on which the interval network's pair nodes matter (a job may not take more of an
# interval than its length): found by comparing the bound with planted faults on 3000 random ones.
PAIR_CAP = [
    Instance.from_lists(3, [1, 1, 2], [3, 3, 2], [[0], [2], [0, 2]]),
    Instance.from_lists(2, [0, 1, 1, 2, 3], [2, 2, 2, 4, 4], [[0, 1], [0, 1], [0, 1], [1], [0, 1]]),
]


@settings(max_examples=40, deadline=None)
@given(weighted(unit=False, max_n=5, max_size=3), st.sampled_from(["flow", "weighted", "stretch"]))
@example(PAIR_CAP[0], "flow")
@example(PAIR_CAP[1], "flow")
@example(PAIR_CAP[1], "stretch")
def test_migratory_bound_is_between_the_slot_relaxation_and_opt(inst, objective):
    """The migratory lower bound (offline/maxflow.py, interval network with pair and machine
    nodes) is at least the migratory optimum found slot by slot with a plain max flow, and at
    most the exact OPT (it may add the counting bounds, which also hold for OPT). Planted faults
    in the interval network survived every other test."""
    W = [Fraction(1)] * inst.n if objective == "flow" else _weights(inst, objective)
    horizon = int(max(inst.release)) + int(sum(inst.size))
    cands = sorted({W[j] * f for j in range(inst.n) for f in range(int(inst.size[j]), horizon + 1)})
    migratory = next(T for T in cands if _migratory_feasible(inst, W, T))
    bound = max_flow_lower_bound(inst, objective)
    opt = opt_max_flow(inst, objective=objective)
    assert opt.status == "optimal"
    assert float(migratory) - 1e-9 <= float(bound) <= opt.value + 1e-9, (migratory, bound, opt.value)


def _probed(grid, lo, hi, threshold):
    """The candidates the gallop probes (then where it hands over) when every candidate at or
    above ``threshold`` is feasible and the others are undecided (None: a limit ran out)."""
    from schedbench.hall.effort import Effort
    from schedbench.scheduling.offline.maxflow import _gallop

    probed = []

    def feasible(T, effort):
        probed.append(T)
        return True if T >= threshold else None

    return probed, _gallop(feasible, lo, hi, Effort(None, 600), grid)


def test_the_gallop_on_real_candidates_hands_over_to_bisection_before_probing_the_bound():
    # stretch_pareto15_m10/0001 at the default limit: from 2.38 the gallop probed the window bound
    # 2 itself and spent everything undecided there; real candidates are dense, so bisect instead
    from schedbench.scheduling.offline.maxflow import _IntGrid, _RealGrid

    grid = _RealGrid(1.0 / np.arange(1, 40, dtype=np.float64), "size")  # stretch weights 1/p
    lo, hi = 2.0, 3.0
    probed, (lo2, hi2, complete) = _probed(grid, lo, hi, threshold=2.05)
    assert lo not in probed and complete and lo2 == lo  # nothing proven below: bisection goes on
    assert hi2 == probed[-1] and all(T >= 2.05 for T in probed)
    assert grid.count(lo, hi2) > 1  # handed over with candidates left to bisect
    # with integer candidates (max flow) the step may end on the bound, the cheap proof there
    probed, (lo3, hi3, complete) = _probed(_IntGrid(5), 29, 32, threshold=30)
    assert probed == [31, 29] and not complete and (lo3, hi3) == (29, 31)
