"""Sized max flow time by lazy windows (spec §8.2): the lazy search (CP-SAT and HiGHS,
with and without the local search) against the full-window MIP ("mip-full") and against brute
force on seeded random small instances of every objective, unit and sized; the soundness of
reusing windows across probes; the ``upper`` schedule; and a planted fault (no EDF re-check of
the relaxation's assignment) that these comparisons must catch."""

import itertools
import time
from fractions import Fraction

import numpy as np
import pytest

from schedbench.hall.effort import Effort
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import maxflow as mf
from schedbench.scheduling.offline import _lazy_windows as lw

OBJECTIVES = ("flow", "weighted", "genwtd", "stretch")
WEIGHTS = (1.0, 2.0, 4.0, 0.5, 1.0 / 3.0)
#: (solver, local-search moves before / after each solve): the first exercises the default
#: path, the others leave every decision to the 0–1 solver.
CONFIGS = (("cpsat", lw.LS_ITERS, lw.POLISH_ITERS), ("cpsat", 0, 0), ("highs", 0, 0))


def random_instance(rng, unit, max_n=6, max_m=3, max_size=4):
    m = int(rng.integers(1, max_m + 1))
    n = int(rng.integers(1, max_n + 1))
    release = np.sort(rng.integers(0, 4, n))
    size = np.ones(n, dtype=np.int64) if unit else rng.integers(1, max_size + 1, n)
    eligible = [sorted(rng.choice(m, int(rng.integers(1, m + 1)), replace=False).tolist()) for _ in range(n)]
    w = rng.choice(np.asarray(WEIGHTS), n).tolist()
    return Instance.from_lists(m, release.tolist(), size.tolist(), eligible, w_flow=w)


def _weights(inst, objective):
    """The objective's float weights as exact fractions (the solver's float64 values)."""
    if objective == "flow":
        return [Fraction(1)] * inst.n
    if objective == "stretch":
        return [Fraction(1.0 / float(p)) for p in inst.size]
    return [Fraction(float(x)) for x in inst.w_flow]


def _edf_meets(jobs, release, size, W, T):
    """One preemptive machine, unit steps, earliest real deadline r_j + T/w_j first."""
    dl = {j: release[j] + T / W[j] for j in jobs}
    rem = {j: size[j] for j in jobs}
    t = 0
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


def brute_force(inst, objective):
    """min over assignments of the max over machines of that machine's optimum (least candidate
    w_j·f, f ≤ horizon, that EDF meets; EDF is optimal on one preemptive machine); exact
    rational arithmetic, independent of the solver."""
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
                if _edf_meets(jobs, release, size, W, cands[mid]):
                    hi = mid
                else:
                    lo = mid + 1
            memo[jobs] = cands[lo]
        return memo[jobs]

    best = None
    for choice in itertools.product(*(inst.eligible(j).tolist() for j in range(n))):
        worst = max(machine_opt(frozenset(j for j in range(n) if choice[j] == i)) for i in set(choice))
        best = worst if best is None else min(best, worst)
    return float(best)


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """Compile (or load) the numba kernels before any time limit runs."""
    inst = Instance.from_lists(2, [0, 0, 0, 1], [2, 2, 2, 1], [[0, 1]] * 4)
    for config in CONFIGS:
        lazy(inst, "flow", config)


def solve(inst, objective, **kw):
    """The sized search forced (also on unit jobs), without the counting and migratory bounds so
    that the probes decide."""
    t0 = time.perf_counter()
    dl = mf._Deadlines(inst, objective)
    return mf._opt_sized(inst, dl, t0, Effort(None, 600), 0, counting=False, migratory=False, **kw)


def lazy(inst, objective, config, **kw):
    solver, ls_iters, polish_iters = config
    return solve(inst, objective, solver=solver, ls_iters=ls_iters, polish_iters=polish_iters, **kw)


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("unit", [False, True])
def test_lazy_equals_full_mip_and_brute_force(objective, unit):
    """8 cells × 70 seeded instances = 560 instances, each solved by one lazy configuration
    (rotating), by the full MIP on every fifth, and by brute force."""
    rng = np.random.default_rng(1000 * OBJECTIVES.index(objective) + unit)
    for case in range(70):
        inst = random_instance(rng, unit)
        opt = brute_force(inst, objective)
        config = CONFIGS[case % len(CONFIGS)]
        res = lazy(inst, objective, config)
        assert (res.status, res.value, res.lower_bound) == ("optimal", opt, opt), (case, config, res)
        assert res.solver.startswith(f"lazy-{config[0]}")
        if case % 5 == 0:
            full = solve(inst, objective, method="mip-full")
            assert (full.status, full.value) == ("optimal", opt), (case, full)


def test_public_entry_point_uses_the_lazy_search_and_agrees(monkeypatch):
    monkeypatch.setattr(mf, "LAZY_MIN_JOBS", 1)  # small instances use the full MIP by default
    rng = np.random.default_rng(7)
    seen = 0
    for _ in range(30):
        inst = random_instance(rng, unit=False, max_n=6)
        for objective in ("flow", "stretch"):
            res = mf.opt_max_flow(inst, objective=objective, time_limit=120)
            assert (res.status, res.value) == ("optimal", brute_force(inst, objective))
            seen += res.solver.startswith("lazy-")
    assert seen > 0  # some instances are not settled by the bounds alone


def _poisson(n, m, seed, sizes=6):
    rng = np.random.default_rng(seed)
    size = rng.integers(1, sizes + 1, n)
    counts = rng.poisson(0.9 * m / ((sizes + 1) / 2), size=4 * n)
    release = np.repeat(np.arange(counts.size), counts)[:n]
    eligible = np.argsort(rng.random((n, m)), axis=1)[:, :2]
    return Instance(
        m=m,
        release=release,
        size=size,
        indptr=np.arange(0, 2 * n + 1, 2),
        indices=eligible.ravel(),
        w_flow=None,
        w_reject=None,
    )


def test_medium_instance_agrees_with_the_full_mip_for_both_solvers():
    inst = _poisson(60, 4, 3)
    full = solve(inst, "flow", method="mip-full")
    assert full.status == "optimal"
    for solver in lw.SOLVERS:
        res = lazy(inst, "flow", (solver, 0, 0))
        assert (res.status, res.value) == ("optimal", full.value), solver


def test_windows_reused_across_probes_in_any_order_give_the_fresh_answers():
    """One LazyWindows object probed at T going down, up and down again answers as a fresh one
    at each T (windows are re-evaluated at the probe's T, never kept with an old capacity)."""
    inst = _poisson(40, 3, 5)
    dl = mf._Deadlines(inst, "flow")
    machine, completion = mf._list_schedule(inst)
    top = int(dl.value(completion))
    shared = lw.LazyWindows(inst, dl, 0, hint=machine, ls_iters=0, polish_iters=0)
    Ts = list(range(top, 0, -1)) + list(range(1, top + 1)) + list(range(top, 0, -2))
    for T in Ts:
        fresh = lw.LazyWindows(inst, dl, 0, hint=machine, ls_iters=0, polish_iters=0)
        a = shared.probe(T, Effort(None, 600))[0]
        b = fresh.probe(T, Effort(None, 600))[0]
        assert a == b, T
    assert shared.win.shape[0] > 0


def test_upper_schedule_is_used_and_checked():
    inst = Instance.from_lists(2, [0, 0, 0, 1, 1], [2, 2, 2, 1, 1], [[0, 1]] * 5)
    opt = brute_force(inst, "flow")
    good = np.array([0, 1, 0, 1, 1])  # jobs 0, 2 on machine 0; 1, 3, 4 on machine 1
    t0 = time.perf_counter()
    dl = mf._Deadlines(inst, "flow")
    res = mf._opt_sized(inst, dl, t0, Effort(None, 600), 0, upper=good)
    assert (res.status, res.value) == ("optimal", opt)
    bad = Instance.from_lists(2, [0, 0], [1, 1], [[0], [1]])
    with pytest.raises(ValueError, match="job 0 is on machine 1"):
        mf._opt_sized(bad, mf._Deadlines(bad, "flow"), t0, Effort(None, 600), 0, upper=np.array([1, 1]))


def test_small_instances_use_the_full_mip_large_ones_the_lazy_search():
    small = _poisson(mf.LAZY_MIN_JOBS - 1, 3, 1)
    large = _poisson(mf.LAZY_MIN_JOBS, 3, 1)
    a, b = mf.opt_max_flow(small, time_limit=60), mf.opt_max_flow(large, time_limit=60)
    assert a.solver.startswith(("highs-mip", "migratory-maxflow")), a
    assert b.solver.startswith(("lazy-", "migratory-maxflow")), b


def test_lazy_model_size_limit_gives_a_bound(monkeypatch):
    monkeypatch.setattr(mf, "MAX_MIP_ROWS", 0)
    inst = Instance.from_lists(2, [0, 0, 0], [2, 2, 2], [[0, 1]] * 3)
    res = solve(inst, "flow", ls_iters=0, polish_iters=0)
    assert res.status == "bound" and np.isnan(res.value) and "lazy model too large" in res.solver


def test_a_planted_fault_is_caught():
    """Without the EDF re-check, a relaxation's assignment (only the windows found so far) is
    taken as feasible: the comparison with brute force must see wrong answers."""
    rng = np.random.default_rng(11)
    wrong = 0
    for _ in range(40):
        inst = random_instance(rng, unit=False, max_n=6, max_size=4)
        for objective in ("flow", "stretch"):
            res = lazy(inst, objective, ("cpsat", 0, 0), check_edf=False)
            wrong += res.value != brute_force(inst, objective)
    assert wrong > 0
