"""Solver limits (hall/effort.py, docs/offline-optimum.md): the work limit decides a result and
gives the same answer on a quiet and on a loaded machine; the wall clock is only a safety net
and a solve it stops says so."""

from __future__ import annotations

import functools
import multiprocessing as mp
import time

import numpy as np
import pytest

from schedbench.hall.effort import Effort, clock_margin, compile_seconds, work_clock
from schedbench.hall.params import ParameterError
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import opt_makespan, opt_max_flow, solve_opt
from schedbench.scheduling.offline.makespan import SolverLimitError
from schedbench.scheduling.offline.maxflow import max_flow_lower_bound
from schedbench.scheduling.search import search_worst, worst_case
from schedbench.scheduling.search.exact import SearchFailed


@functools.lru_cache(maxsize=None)
def poisson(n: int, m: int, seed: int, max_size: int, rho: float = 0.95) -> Instance:
    """n jobs with sizes U{1..max_size}, Poisson arrivals at load rho, 2 random eligible machines
    (built once per arguments: a clock test times the solve, not the making of its instance)."""
    rng = np.random.default_rng(seed)
    size = rng.integers(1, max_size + 1, size=n)
    rate = rho * m / ((max_size + 1) / 2)
    counts = rng.poisson(rate, size=int(2 * n / rate) + 10)
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
        meta={},
    )


# Solves the work limit stops before the optimum is proven (checked below: status "bound"), one
# per solver: the window MIP with HiGHS (< 64 jobs), lazy windows with CP-SAT, the makespan MILP.
CASES = {
    "highs window MIP": (lambda: opt_max_flow(poisson(40, 4, 1, 16), work_limit=0.02)),
    "cp-sat lazy windows": (lambda: opt_max_flow(poisson(200, 10, 1, 16), work_limit=0.5)),
    "highs makespan MILP": (lambda: opt_makespan(poisson(120, 8, 1, 40), work_limit=0.005)),
}


def _burn(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _key(res):
    return res.value, res.status, res.lower_bound, res.solver


def test_work_limited_solves_give_the_same_answer_on_a_loaded_machine():
    quiet = {name: _key(solve()) for name, solve in CASES.items()}
    assert all(k[1] == "bound" and k[2] < k[0] for k in quiet.values()), quiet  # the limit did bind
    stop = mp.Event()
    burners = [mp.Process(target=_burn, args=(stop,), daemon=True) for _ in range(3)]  # 3 busy processes, 2 cores
    for p in burners:
        p.start()
    try:
        time.sleep(0.2)
        loaded = {name: _key(solve()) for name, solve in CASES.items()}
    finally:
        stop.set()
        for p in burners:
            p.join(timeout=10)
    assert loaded == quiet


def test_without_a_work_limit_the_same_solves_are_proven():
    res = opt_max_flow(poisson(40, 4, 1, 16), work_limit=None)
    assert res.status == "optimal" and res.value < _key(CASES["highs window MIP"]())[0] + 1


def test_the_clock_stops_a_solve_only_as_a_labelled_safety_net():
    inst = poisson(200, 10, 1, 16)
    res = opt_max_flow(inst, work_limit=None, time_limit=1e-3)
    assert res.status == "timeout" and res.lower_bound <= res.value
    assert opt_makespan(poisson(120, 8, 1, 40), work_limit=None, time_limit=1e-6).status == "timeout"


def test_effort_remembers_which_limit_came_first():
    e = Effort(1.0, 60.0)
    assert not e.exhausted() and e.status == "bound"
    e.used = 1.0
    assert e.exhausted() and e.stopped_by == "work" and e.status == "bound"
    c = Effort(None, 1e-9)
    time.sleep(1e-3)
    assert c.exhausted() and c.status == "timeout"
    c.used = 10.0  # a later overrun of work does not relabel a clock stop
    assert c.stopped_by == "clock"


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "10", True])
def test_a_bad_work_limit_is_refused_by_name(bad):
    inst = poisson(10, 2, 0, 4)
    with pytest.raises(ParameterError, match="work_limit"):
        solve_opt(inst, "maxflow", work_limit=bad)
    with pytest.raises(SolverLimitError, match="work_limit"):
        opt_max_flow(inst, work_limit=bad)
    with pytest.raises(SolverLimitError, match="work_limit"):
        opt_makespan(inst, work_limit=bad)
    with pytest.raises(ParameterError, match="work_limit"):
        worst_case("greedy", m=2, work_limit=bad)


def test_a_huge_finite_work_limit_is_no_limit_not_an_overflow():
    # 1e306 units times HiGHS's nodes per unit is inf: the node limit is capped before rounding
    # (found by the hostile-input harness: "cannot convert float infinity to integer")
    inst = poisson(40, 3, 0, 8)
    huge = 8.98846567431158e305
    for solve in (opt_makespan, opt_max_flow):
        got, ref = solve(inst, work_limit=huge), solve(inst, work_limit=None)
        assert got.status == ref.status == "optimal" and got.value == ref.value


def test_the_exact_search_stopped_by_its_work_limit_is_reproducible():
    runs = [worst_case("greedy", m=8, opt=2, work_limit=0.3, workers=1, seed=3) for _ in range(2)]
    assert all(not wc.proved and wc.extra["stopped_by"] == "work" for wc in runs)
    assert runs[0].objective == runs[1].objective and runs[0].bound == runs[1].bound
    assert np.array_equal(runs[0].instance.indices, runs[1].instance.indices)


def test_a_pipeline_sized_seed_is_taken_modulo_2_31_by_the_solvers():
    # the pipeline derives 64-bit seeds; HiGHS refused those above 2^31 with an error status and
    # silently kept its default seed (offline/result.solver_seed)
    inst = poisson(40, 4, 1, 16)
    big = 2708438057
    a = opt_max_flow(inst, seed=big, work_limit=0.02)
    b = opt_max_flow(inst, seed=big % 2**31, work_limit=0.02)
    assert _key(a) == _key(b)
    assert solve_opt(inst, "maxflow", seed=2**63).status in ("optimal", "bound")


# A solve or search too large to finish in one second per solver path, each given one second of
# wall clock and no work limit: the model building, the solver's reaction to its limit and the
# result's assembly must fit in the stated margin (hall/effort.clock_margin).
CLOCK_CASES = {
    "makespan MILP (HiGHS)": lambda t: opt_makespan(poisson(2000, 40, 1, 40), time_limit=t, work_limit=None),
    "window MIP (HiGHS)": lambda t: opt_max_flow(poisson(63, 3, 3, 100), time_limit=t, work_limit=None),
    "lazy windows": lambda t: opt_max_flow(poisson(3000, 20, 1, 16), time_limit=t, work_limit=None),
    "lazy windows, stretch": lambda t: opt_max_flow(poisson(3000, 20, 2, 16), "stretch", time_limit=t, work_limit=None),
    "unit matching": lambda t: opt_max_flow(poisson(200_000, 100, 1, 1), time_limit=t, work_limit=None),
    "migratory bound": lambda t: max_flow_lower_bound(poisson(200_000, 100, 1, 16), time_limit=t),
    "solve_opt genwtd (lazy windows)": lambda t: solve_opt(
        poisson(3000, 20, 3, 16), "genwtd", time_limit=t, work_limit=None
    ),
    "exact search (CP-SAT)": lambda t: worst_case("greedy", m=6, opt=2, time_limit=t, workers=1, work_limit=None),
    "black-box search": lambda t: search_worst("ll-fifo", m=8, eps=0.25, budget_seconds=t, max_evals=10**6),
}


@pytest.mark.parametrize("case", list(CLOCK_CASES))
def test_every_solver_and_search_returns_within_its_clock_limit_and_the_margin(case):
    try:  # compiled code loaded and caches warm: the limit covers the solve
        CLOCK_CASES[case](0.05)
    except SearchFailed:  # the exact search found nothing in 0.05 s (a loaded machine): warm all the same
        pass
    limit = 1.0
    t, c = time.perf_counter(), compile_seconds()
    CLOCK_CASES[case](limit)
    elapsed = time.perf_counter() - t
    compiling = compile_seconds() - c  # limits are read on work_clock(): a compile is not the solve's time
    assert elapsed - compiling <= limit + clock_margin(limit), (
        f"{case}: {elapsed:.2f} s ({compiling:.2f} s compiling) for a limit of {limit} s"
    )


def test_the_work_clock_stops_while_numba_compiles_and_runs_otherwise():
    from numba import njit
    from numba.core import event

    w0, p0 = work_clock(), time.perf_counter()
    durations: list[float] = []

    @njit(cache=False)  # a fresh function: compiled here, never loaded from a cache
    def walk(n):
        s = 0.0
        for i in range(n):
            s += (i % 7) * 0.5
        return s

    with event.install_timer("numba:compile", durations.append):  # numba's own measure of the compile
        assert walk(10) == sum((i % 7) * 0.5 for i in range(10))
    time.sleep(0.2)  # not compiling: the work clock runs
    dw, dp = work_clock() - w0, time.perf_counter() - p0
    assert durations and durations[0] > 0.01
    assert dw == pytest.approx(dp - durations[0], abs=0.05)
    assert dw >= 0.2


def test_a_safety_net_does_not_run_out_while_numba_compiles():
    from numba import njit

    limit = 0.03
    effort = Effort(work_limit=None, time_limit=limit)

    @njit(cache=False)
    def slow_to_compile(a):
        out = 0
        for x in a:
            for y in a:
                out += (x * 3 + y) % 5 if x > y else (x ^ y) & 7
        return out

    t, c = time.perf_counter(), compile_seconds()
    slow_to_compile(np.arange(5))
    compiling = compile_seconds() - c
    assert compiling > limit  # the compile alone is longer than the limit ...
    assert time.perf_counter() - t > limit
    assert effort.seconds_left() > 0 and not effort.exhausted()  # ... and did not use it up


def test_effort_gives_a_budgeted_step_what_is_left_of_both_limits_and_charges_it():
    e = Effort(2.0, 600.0)
    assert e.step_budget(1000.0) == 2000  # the work binds
    e.charge_steps(500, 1000.0, 2000)
    assert e.used == 0.5 and not e.stopped_by
    e.charge_steps(1500, 1000.0, 1500)  # used its whole work budget: the work limit, not the clock
    assert e.exhausted() and e.status == "bound"
    c = Effort(None, 0.5)
    budget = c.step_budget(1000.0)
    assert 0 < budget <= 500  # the clock binds: what is left of half a second
    c.charge_steps(budget, 1000.0, budget)
    assert c.stopped_by == "clock" and c.status == "timeout"


def _local_search_case():
    """A lazy-windows probe whose tabu search has many moves to make: 3000 jobs on 20 machines at
    a deadline below the list schedule's value."""
    from schedbench.scheduling.offline import _lazy_windows as lw
    from schedbench.scheduling.offline import maxflow as mf

    inst = poisson(3000, 20, 1, 16)
    dl = mf._Deadlines(inst, "flow")
    machine, completion = mf._list_schedule(inst)
    T = int(dl.value(completion)) // 2
    return lw.LazyWindows(inst, dl, 0, hint=machine), machine, dl.deadline(T).astype(np.int64)


def test_the_local_search_stops_at_the_work_it_is_given_and_is_charged_for_it():
    """The tabu search used to run its fixed 2000 moves whatever the limits (about 200 s at
    n = 10^4 on 16 machines): now it stops once the effort's budget is spent, deterministically."""
    from schedbench.scheduling.offline import _lazy_windows as lw

    probe, machine, deadline = _local_search_case()
    per_move = int(np.diff(probe.mptr).max()) * (1 + 2 * int(np.diff(probe.mptr).max()))  # one move's scans, at most
    free = Effort(None, 600.0)
    probe._search(machine, deadline, lw.LS_ITERS, free)
    full_ops = free.used * lw.LS_OPS_PER_UNIT
    work = full_ops / 4 / lw.LS_OPS_PER_UNIT  # a quarter of what the full search does
    runs = []
    for _ in range(2):  # a fresh probe each time: its k-th search draws from seed + k
        probe, machine, deadline = _local_search_case()
        e = Effort(work, 600.0)
        runs.append(probe._search(machine, deadline, lw.LS_ITERS, e))
        assert work <= e.used <= work + per_move / lw.LS_OPS_PER_UNIT
        assert e.exhausted() and e.status == "bound"
    assert np.array_equal(runs[0], runs[1])
