"""Restricted-assignment makespan (the LoadBalancing optimum), docs/models/rejection-model.md §8.1.

OPT serves every job at speed 1 and rejects nothing (docs/models/rejection-model.md §1.2).

* **Lower bound** = the LP relaxation, computed as a max-flow feasibility test
  (``scipy.sparse.csgraph.maximum_flow``): source→job (cap p_j), job→eligible machine
  (cap p_j), machine→sink (cap T); T is feasible iff the flow saturates Σp. The smallest
  feasible integer T, found by bisection between ``max(p_max, ⌈Σp/m⌉)`` and a greedy schedule,
  is the bound.
* **Unit sizes**: the flow is integral, so that T is the exact optimum (b-matching).
* **Otherwise**: exact MILP with HiGHS (highspy) — min T s.t. Σ_{i∈S_j} x_ij = 1,
  Σ_j p_j x_ij ≤ T, x binary, T integer — under a time limit, warm-started with the
  largest-first greedy schedule and skipped when that schedule already meets the bound.

Limits (:class:`schedbench.hall.solvers.Effort`): ``work_limit`` (deterministic units) bounds
the MILP's branch and bound, so a result does not depend on the machine's load; ``time_limit``
(wall clock) is a safety net over the whole call: the bisection stops when it is up (or when the
next max-flow solve would overrun it, judged by the longest so far) and the MILP runs only in
what is left. A solve stopped by the work limit has ``status="bound"``, by the clock
``status="timeout"``; either way ``value`` is the greedy schedule (or the MILP's best) and
``lower_bound`` the best bound proven. Overruns of the safety net left: the greedy schedule and
the first max-flow solve (~0.02 s and ~0.1 s on 2·10^5 jobs), and HiGHS's presolve, which does
not watch the clock (~0.7 s on a 6·10^5-variable MILP).
"""

from __future__ import annotations

import math
import time

import highspy
import numpy as np
from scipy.sparse import csr_array
from scipy.sparse.csgraph import maximum_flow

from schedbench.hall.effort import DEFAULT_TIME_LIMIT, DEFAULT_WORK_LIMIT, Effort, work_clock
from schedbench.hall.jit import compiled
from schedbench.hall.solvers import quiet_highs, run_checked
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline.result import OptResult, check_solve_arguments, solver_seed

__all__ = ["opt_makespan", "makespan_lower_bound", "trivial_bound", "SolverLimitError"]

#: scipy's maximum_flow keeps capacities in int32.
_MAX_FLOW_TOTAL = 2**31 - 1


class SolverLimitError(ValueError):
    """The instance or an argument is outside what the makespan solver handles (the message
    names which); a user-facing error, not a bug."""


@compiled
def _largest_first_schedule(size, indptr, indices, m):
    """Largest job first to the least-loaded eligible machine: a feasible upper bound."""
    n = size.shape[0]
    order = np.argsort(-size, kind="mergesort")
    load = np.zeros(m, dtype=np.int64)
    machine = np.empty(n, dtype=np.int64)
    for j in order:
        best = indices[indptr[j]]
        for k in range(indptr[j] + 1, indptr[j + 1]):
            i = indices[k]
            if load[i] < load[best] or (load[i] == load[best] and i < best):
                best = i
        machine[j] = best
        load[best] += size[j]
    return machine, load.max()


class _FlowBound:
    """Max-flow feasibility of makespan T, reusing one graph for every T tried."""

    def __init__(self, inst: Instance) -> None:
        n, m = inst.n, inst.m
        self.total = int(inst.size.sum())
        if self.total >= _MAX_FLOW_TOTAL:
            raise SolverLimitError(
                f"field 'size': total size {self.total} is too large for the max-flow bound "
                f"(scipy's maximum_flow keeps capacities in int32: the total must be < {_MAX_FLOW_TOTAL})"
            )
        counts = np.diff(inst.indptr)
        src, job0, mach0, sink = 0, 1, 1 + n, 1 + n + m
        self.sink_edge_start = n + inst.indices.size  # machine->sink edges come last
        tails = np.concatenate(
            [
                np.full(n, src),
                job0 + np.repeat(np.arange(n), counts),
                mach0 + np.arange(m),
            ]
        )
        heads = np.concatenate([job0 + np.arange(n), mach0 + inst.indices, np.full(m, sink)])
        caps = np.concatenate([inst.size, np.repeat(inst.size, counts), np.zeros(m, np.int64)])
        self.shape = (sink + 1, sink + 1)
        self.tails, self.heads = tails, heads
        self.caps = caps.astype(np.int32)
        self.src, self.sink = src, sink

    def feasible(self, T: int) -> bool:
        caps = self.caps.copy()
        caps[self.sink_edge_start :] = min(T, 2**31 - 1)
        graph = csr_array((caps, (self.tails, self.heads)), shape=self.shape)
        return maximum_flow(graph, self.src, self.sink).flow_value == self.total


def trivial_bound(inst: Instance) -> int:
    """max(p_max, ⌈Σp/m⌉): what OPT equals on easy instances (figures say when it does)."""
    return max(int(inst.size.max()), math.ceil(int(inst.size.sum()) / inst.m))


def makespan_lower_bound(inst: Instance, upper: int | None = None) -> int:
    """The LP (= max-flow) lower bound on the optimal makespan; exact for unit sizes."""
    if inst.n == 0:
        return 0
    if upper is None:
        upper = int(_largest_first_schedule(inst.size, inst.indptr, inst.indices, inst.m)[1])
    return _bisect(inst, trivial_bound(inst), upper, Effort(None, math.inf))[0]


def _bisect(inst: Instance, lo: int, hi: int, effort: Effort) -> tuple[int, bool]:
    """The smallest feasible T in [lo, hi] (hi feasible: a schedule of makespan hi exists), and
    whether the search finished; if the safety net of ``effort`` runs out first, ``lo`` is the
    best lower bound proven so far (max-flow solves are polynomial: not charged as work)."""
    flow = _FlowBound(inst) if lo < hi else None
    last = 0.0  # the longest max-flow solve so far: predicts the next one
    while lo < hi:
        now = work_clock()
        if now + last > effort.deadline:
            effort.clock_stop()
            return lo, False
        mid = (lo + hi) // 2
        if flow.feasible(mid):
            hi = mid
        else:
            lo = mid + 1
        last = max(last, work_clock() - now)
    return lo, True


def opt_makespan(
    inst: Instance, time_limit: float = DEFAULT_TIME_LIMIT, seed: int = 0, work_limit: float | None = DEFAULT_WORK_LIMIT
) -> OptResult:
    """Optimal restricted-assignment makespan of ``inst`` (no rejection, speed 1).

    Returns ``status="optimal"`` with the proven optimum, or — when the MILP's ``work_limit``
    (deterministic units; ``None`` for none) or the wall-clock safety net ``time_limit``
    (seconds, > 0; ``inf`` for none) ended the solve — ``"bound"`` or ``"timeout"`` with the best
    schedule found as ``value`` and the best proven bound as ``lower_bound`` (module docstring).
    """
    t0 = time.perf_counter()
    check_solve_arguments("opt_makespan", inst, time_limit, seed, work_limit, SolverLimitError, finite_time=False)
    effort = Effort(work_limit, time_limit)
    if inst.n == 0:
        return OptResult(0.0, "optimal", 0.0, "trivial", time.perf_counter() - t0)
    machine, upper = _largest_first_schedule(inst.size, inst.indptr, inst.indices, inst.m)
    upper = int(upper)
    lower, complete = _bisect(inst, trivial_bound(inst), upper, effort)
    if not complete:
        return OptResult(float(upper), effort.status, float(lower), "maxflow+greedy", time.perf_counter() - t0)
    if inst.unit_sizes:
        return OptResult(float(lower), "optimal", float(lower), "maxflow", time.perf_counter() - t0)
    if lower == upper:
        return OptResult(float(upper), "optimal", float(lower), "maxflow+greedy", time.perf_counter() - t0)
    if effort.exhausted():
        return OptResult(float(upper), effort.status, float(lower), "maxflow+greedy", time.perf_counter() - t0)
    value, bound, optimal = _milp(inst, lower, upper, machine, effort, seed, warm=True)
    solver = "highs-milp"
    if value is None:  # HiGHS contradicted itself with the warm start: solve again without it
        value, bound, optimal = _milp(inst, lower, upper, machine, effort, seed, warm=False)
        solver = "highs-milp (cold: the warm-started solve was inconsistent)"
        if value is None:
            return OptResult(
                float(upper),
                effort.status,
                float(lower),
                "maxflow+greedy (HiGHS inconsistent)",
                time.perf_counter() - t0,
            )
    status = "optimal" if optimal else effort.status
    return OptResult(float(value), status, float(max(lower, bound)), solver, time.perf_counter() - t0)


def _milp(
    inst: Instance, lower: int, upper: int, start: np.ndarray, effort: Effort, seed: int, warm: bool = True
) -> tuple[float | None, float, bool]:
    """(value, bound, optimal) of the MILP under the deadline. The value is never HiGHS's word:
    it is the makespan of the assignment HiGHS returns, recomputed here, and a claimed optimum
    must agree with it and with the proven ``lower`` bound. If HiGHS's own objective disagrees
    with its solution (seen with highspy 1.16 and a warm start: objective 1, T column 3, status
    optimal), the value is None and the caller solves again without the warm start."""
    n, m, nnz = inst.n, inst.m, inst.indices.size
    h = quiet_highs()
    h.setOptionValue("random_seed", solver_seed(seed))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 1.0 - 1e-6)  # the objective is integral
    inf = highspy.kHighsInf
    # Columns 0..nnz-1: x_(j,i) for each CSR entry; column nnz: T.
    counts = np.diff(inst.indptr)
    owner = np.repeat(np.arange(n), counts)
    cost = np.zeros(nnz + 1)
    cost[nnz] = 1.0
    lo_col = np.zeros(nnz + 1)
    hi_col = np.ones(nnz + 1)
    lo_col[nnz], hi_col[nnz] = lower, upper
    h.addVars(nnz + 1, lo_col, hi_col)
    h.changeColsCost(nnz + 1, np.arange(nnz + 1, dtype=np.int32), cost)
    h.changeColsIntegrality(
        nnz + 1, np.arange(nnz + 1, dtype=np.int32), np.full(nnz + 1, highspy.HighsVarType.kInteger)
    )
    # Assignment rows: sum_i x_ji = 1 (CSR rows are exactly the instance's CSR).
    h.addRows(
        n, np.ones(n), np.ones(n), nnz, inst.indptr[:-1].astype(np.int32), np.arange(nnz, dtype=np.int32), np.ones(nnz)
    )
    # Machine rows: sum_j p_j x_ji - T <= 0.
    by_machine = np.argsort(inst.indices, kind="stable")
    mcounts = np.bincount(inst.indices, minlength=m)
    starts = np.zeros(m + 1, dtype=np.int64)
    starts[1:] = np.cumsum(mcounts + 1)
    idx = np.empty(nnz + m, dtype=np.int32)
    val = np.empty(nnz + m)
    for i, (a, b) in enumerate(zip(np.r_[0, np.cumsum(mcounts)[:-1]], np.cumsum(mcounts))):
        cols = by_machine[a:b]
        s = starts[i]
        idx[s : s + (b - a)] = cols
        val[s : s + (b - a)] = inst.size[owner[cols]]
        idx[s + (b - a)] = nnz
        val[s + (b - a)] = -1.0
    h.addRows(m, np.full(m, -inf), np.zeros(m), nnz + m, starts[:-1].astype(np.int32), idx, val)
    # Warm start from the largest-first schedule.
    if warm:
        x0 = np.zeros(nnz + 1)
        chosen = inst.indptr[:-1] + _position_in_row(inst, start)
        x0[chosen] = 1.0
        x0[nnz] = upper
        sol = highspy.HighsSolution()
        sol.col_value = x0.tolist()
        sol.value_valid = True
        h.setSolution(sol)
    if effort.exhausted():  # building the model counts against the safety net
        return upper, lower, False
    effort.limit_highs(h)
    status = run_checked(h, "makespan MILP")
    effort.charge_highs(h, status)
    stopped = (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kSolutionLimit)
    if status != highspy.HighsModelStatus.kOptimal and status not in stopped:
        raise RuntimeError(f"makespan MILP: unexpected HiGHS status {h.modelStatusToString(status)}")
    info = h.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    value = float(upper)
    if has_solution:
        x = np.asarray(h.getSolution().col_value[:nnz])
        pick = np.maximum.reduceat(x, inst.indptr[:-1]) if n else np.zeros(0)
        row_max = np.repeat(pick, counts)
        first = np.flatnonzero(x >= row_max - 1e-9)  # a chosen machine per job
        job_of = owner[first]
        take = np.r_[True, job_of[1:] != job_of[:-1]]
        assign = inst.indices[first[take]]
        load = np.bincount(assign, weights=inst.size, minlength=m)
        recomputed = float(load.max())
        if abs(recomputed - float(info.objective_function_value)) > 0.5 or recomputed < lower:
            if warm:
                return None, float(lower), False
            has_solution = False
        else:
            value = min(recomputed, float(upper))
    bound = float(info.mip_dual_bound) if math.isfinite(info.mip_dual_bound) else float(lower)
    bound_int = max(int(lower), math.ceil(bound - 1e-6))
    optimal = has_solution and bound_int >= round(value)
    if optimal:
        bound_int = round(value)
    return round(value), bound_int, optimal


def _position_in_row(inst: Instance, machine: np.ndarray) -> np.ndarray:
    """For each job, the offset of its chosen machine inside its CSR row."""
    owner = np.repeat(np.arange(inst.n), np.diff(inst.indptr))
    hit = np.flatnonzero(inst.indices == machine[owner])  # one hit per job: machines are distinct
    return hit - inst.indptr[:-1]
