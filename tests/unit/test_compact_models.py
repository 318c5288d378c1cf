"""The compact exact probe models of sized max flow time (offline/_compact.py, spec §8.2): the
backlog chain and the interval transportation model decide every probe on small instances of
every objective as a brute force does, and agree probe by probe with the lazy windows (today's
model) on random instances; on a 120-job instance both searches prove the same OPT."""

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.hall.effort import Effort
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import _compact as cm
from schedbench.scheduling.offline import _lazy_windows as lw
from schedbench.scheduling.offline import maxflow as mf
from schedbench.scheduling.registry import get_family

from .test_offline_flow_scale import OBJECTIVES, brute_force, random_instance


def solve(inst, objective, solver, **kw):
    """The sized search with the probes alone deciding (no bounds, no local search)."""
    dl = mf._Deadlines(inst, objective)
    return mf._opt_sized(
        inst,
        dl,
        time.perf_counter(),
        Effort(None, 600),
        0,
        counting=False,
        migratory=False,
        solver=solver,
        ls_iters=0,
        polish_iters=0,
        **kw,
    )


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("solver", cm.COMPACT)
def test_compact_models_equal_brute_force(objective, solver):
    """25 seeded instances per (objective, model), sized and unit: the compact model decides
    every probe of the search and the optimum is the brute force's."""
    rng = np.random.default_rng(7000 + 10 * OBJECTIVES.index(objective) + cm.COMPACT.index(solver))
    for case in range(25):
        inst = random_instance(rng, unit=case % 4 == 0)
        opt = brute_force(inst, objective)
        res = solve(inst, objective, solver)
        assert (res.status, res.value, res.lower_bound) == ("optimal", opt, opt), (case, res)
        assert res.solver.startswith(f"lazy-{solver}")


@st.composite
def probe_cases(draw):
    """A random sized instance (up to 12 jobs on 3 machines, sizes ≤ 5, releases ≤ 8), an
    objective and a T among its candidates around the list schedule's value."""
    m = draw(st.integers(1, 3))
    n = draw(st.integers(1, 12))
    release = sorted(draw(st.lists(st.integers(0, 8), min_size=n, max_size=n)))
    size = draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
    elig = [sorted(draw(st.sets(st.integers(0, m - 1), min_size=1, max_size=m))) for _ in range(n)]
    w = draw(st.lists(st.sampled_from([1.0, 2.0, 0.5, 4.0]), min_size=n, max_size=n))
    inst = Instance.from_lists(m, release, size, elig, w_flow=w)
    objective = draw(st.sampled_from(OBJECTIVES))
    dl = mf._Deadlines(inst, objective)
    _, completion = mf._list_schedule(inst)
    top = dl.value(completion)
    k = draw(st.integers(0, 6))
    T = top
    for _ in range(k):  # k candidates below the list schedule's value (or the least one)
        if dl.grid.count(0, T) == 0:
            break
        T = dl.grid.below(T)
    return inst, objective, T


@settings(max_examples=80, deadline=None)
@given(probe_cases())
def test_compact_probes_agree_with_the_lazy_windows(case):
    """Probe by probe at the same T: feasible for one model iff for the other (the lazy windows
    iterate to the exact answer, the compact models state it at once), and a feasible compact
    assignment meets every deadline under EDF."""
    inst, objective, T = case
    dl = mf._Deadlines(inst, objective)
    want, _ = lw.LazyWindows(inst, dl, 0, ls_iters=0, polish_iters=0).probe(T, Effort(None, 600))
    for solver in cm.COMPACT:
        got, machine = lw.LazyWindows(inst, dl, 0, solver=solver, ls_iters=0, polish_iters=0).probe(
            T, Effort(None, 600)
        )
        assert got == want, (solver, T)
        if got:
            assert mf._edf_value(inst, dl, machine, T) <= T


def test_backlog_needs_a_common_window_and_transport_takes_any():
    inst = Instance.from_lists(1, [0, 1], [2, 1], [[0], [0]], w_flow=[1.0, 2.0])
    assert cm.common_window(inst, np.array([3, 4])) == 3
    assert cm.common_window(inst, np.array([3, 3])) is None


@pytest.mark.parametrize(
    "objective,params",
    [
        ("flow", {"max_size": 16, "load": 0.95}),
        ("stretch", {"n": 80, "sizes": "pareto", "pareto_shape": 1.5, "max_size": 16, "load": 0.9}),
    ],
)
def test_compact_and_lazy_searches_prove_the_same_opt_on_a_mid_size_instance(objective, params):
    """120 (stretch: 80) jobs on 8 machines, the small families' size: every model proves one OPT."""
    kw = {"m": 8, "n": 120, "d": 2, "sizes": "uniform", "arrivals": "poisson", **params}
    inst = get_family("random-restricted").make(1 if objective == "flow" else 3, 11, **kw)
    dl = mf._Deadlines(inst, objective)
    results = {}
    for solver in ("cpsat", *cm.COMPACT):
        res = mf._opt_sized(inst, dl, time.perf_counter(), Effort(None, 600), 0, solver=solver)
        assert res.status == "optimal" and "(0 probes)" not in res.solver, (solver, res)  # the probes decide
        results[solver] = res.value
    assert len(set(results.values())) == 1, results


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_window_bound_is_the_best_window_optimum_and_never_above_opt(objective, monkeypatch):
    """With windows of 4 jobs (every 2), on 12 seeded instances of 8–10 jobs: the window bound
    is the largest brute-force optimum of a window, never above the whole instance's, and the
    search that uses it still ends at the brute force's optimum."""
    monkeypatch.setattr(mf, "WINDOW_JOBS", 4)
    monkeypatch.setattr(mf, "WINDOW_MAX_JOBS", 100)
    rng = np.random.default_rng(9000 + OBJECTIVES.index(objective))
    checked = 0
    while checked < 12:
        inst = random_instance(rng, unit=False, max_n=10, max_m=2, max_size=3)
        if inst.n < 8:
            continue
        checked += 1
        case = checked
        opt = brute_force(inst, objective)
        bound, where = mf._window_bound(inst, objective, Effort(None, 600), 0)
        order = inst.arrival_order()
        starts = sorted(set(range(0, inst.n - 3, 2)) | {inst.n - 4})
        subs = []
        for s in starts:
            jobs = np.sort(order[s : s + 4])
            subs.append(
                brute_force(
                    Instance.from_lists(
                        inst.m,
                        inst.release[jobs].tolist(),
                        inst.size[jobs].tolist(),
                        [inst.eligible(j).tolist() for j in jobs],
                        w_flow=inst.w_flow[jobs].tolist(),
                    ),
                    objective,
                )
            )
        assert bound == max(subs) <= opt, (case, where)
        dl = mf._Deadlines(inst, objective)
        res = mf._opt_sized(inst, dl, time.perf_counter(), Effort(None, 600), 0, counting=False, migratory=False)
        assert (res.status, res.value) == ("optimal", opt), (case, res)
