"""Exact offline optimum of MaxFlowTime, spec §8.2: restricted assignment, preemptive,
non-migratory, every job served at speed 1 (OPT rejects nothing, §1.2).

Everything is organised around per-job deadlines d_j = r_j + T (objective ``"flow"``; the
weighted objectives of §8.3 will use r_j + T/w_j): T is feasible iff some non-migratory
preemptive schedule meets every deadline, and OPT is the least feasible integer T, found by
bisection between a proven lower bound and a feasible schedule.

* **Bounds.** Upper: the FIFO list schedule (each job, in arrival order, to the eligible
  machine where it starts earliest; FIFO is EDF for deadlines r_j + T). Lower: max_j p_j and
  the counting (work) bound — jobs with the same eligible set S released in [a, b] need their
  work done on |S| machines within [a, b + T).
* **Unit sizes, integer releases: exact by matching** (§8.2). T is feasible iff every job can
  be matched to a distinct (machine i ∈ S_j, slot t) with r_j ≤ t ≤ r_j + T − 1. Hopcroft–Karp
  in numba on the implicit graph (:mod:`._matching`), with per-machine time compression; each
  probe starts from the previous probe's matching (kept pairs still fit) plus a greedy fill.
  The compressed right side is limited to :data:`MAX_SLOTS` nodes (a :class:`SolverLimitError`
  naming the field beyond it).
* **General sizes.** (a) The migratory max-flow lower bound of §8.2 (event points r_j, d_j;
  s→j cap p_j, j→(j,I) cap |I|, (j,I)→(i,I), (i,I)→t cap |I|; feasible iff the flow is Σp),
  bisected with ``scipy.sparse.csgraph.maximum_flow``; probes whose network exceeds
  :data:`MAX_FLOW_EDGES` edges are not run (the bound proven so far stands, ``solver`` says
  so). (b) The exact MIP of §8.2 with HiGHS: binary y_ij, Σ_i y_ij = 1, and per machine, for
  every window [a, b] (a a release, b a deadline) whose jobs could overload it,
  Σ_{j: a ≤ r_j, d_j ≤ b} p_j y_ij ≤ b − a (EDF on one preemptive machine makes this exact).
  Bisection on integer T between the migratory bound and the best schedule; each feasible
  probe's assignment is re-scheduled by EDF, whose max flow (≤ T) becomes the new upper bound.
  The MIP is skipped (``status="bound"``, ``value=nan``) when a probe's model would have more
  than :data:`MAX_MIP_ROWS` window rows or :data:`MAX_MIP_NONZEROS` nonzeros.

``time_limit`` (seconds, finite, > 0) covers the whole call: bisection stops when the time is
up (or when the next probe would overrun it, judged by the longest so far); matching probes run
Hopcroft–Karp in chunks of phases between clock checks; HiGHS gets what is left. Then
``status="timeout"``, ``value`` = the best schedule found, ``lower_bound`` = the best proven
bound. Overruns left: the bounds before the first clock check, one chunk of phases, and
HiGHS's own stop (measured: 1.4 s over a 20 s limit on a 400-job MIP).

Measured (benchmarks/bench_opt_flow.py): unit jobs, n = 10^5, m = 100, d = 2, Poisson load
0.9: 0.04 s; load 1.0: 0.6–1.6 s. The MIP proves 200 sized jobs on 5 machines in ~2 s, but
an infeasibility proof at 400 jobs / 10 machines can take ~50 s.
"""

from __future__ import annotations

import math
import time

import highspy
import numpy as np
from numba import njit
from scipy.sparse import csr_array
from scipy.sparse.csgraph import maximum_flow

from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import _matching as mk
from schedbench.scheduling.offline.makespan import SolverLimitError
from schedbench.scheduling.offline.result import OptResult
from schedbench.solvers import quiet_highs, run_checked

__all__ = ["opt_max_flow", "max_flow_lower_bound", "MAX_SLOTS", "MAX_FLOW_EDGES", "MAX_MIP_ROWS",
           "MAX_MIP_NONZEROS", "MAX_MIP_SCAN", "MAX_MIP_COEF"]

#: Largest compressed right side (machine, slot) of the unit matching (int32 arrays: 200 MB).
MAX_SLOTS = 5 * 10**7
#: Largest migratory max-flow network (edges) a probe builds.
MAX_FLOW_EDGES = 5 * 10**6
#: Largest MIP a probe builds: window rows and their nonzeros.
MAX_MIP_ROWS = 2 * 10**5
MAX_MIP_NONZEROS = 4 * 10**6
#: Largest window length (row right-hand side, ≥ every size in it) the MIP accepts: HiGHS
#: fails on coefficients near 2^31, and its tolerances grow with them (feasible answers are
#: re-checked by EDF anyway).
MAX_MIP_COEF = 10**8
#: Largest Σ_i n_i² (n_i: jobs eligible on machine i), the cost of searching the window rows.
MAX_MIP_SCAN = 2 * 10**8
#: scipy's maximum_flow keeps capacities in int32.
_MAX_FLOW_TOTAL = 2**31 - 1
#: Hopcroft–Karp phases between two clock checks.
_HK_CHUNK = 8

_OBJECTIVES = ("flow",)


# ----------------------------------------------------------------------------- arguments
def _check_args(objective, time_limit) -> None:
    if objective not in _OBJECTIVES:
        raise ValueError(f"argument 'objective' must be one of {', '.join(map(repr, _OBJECTIVES))}, "
                         f"got {objective!r}")
    ok = (isinstance(time_limit, (int, float, np.integer, np.floating))
          and not isinstance(time_limit, (bool, np.bool_)))
    if not ok or not (math.isfinite(time_limit) and time_limit > 0):
        raise SolverLimitError(f"argument 'time_limit' must be a finite number > 0 (seconds), "
                               f"got {time_limit!r}")


class _Deadlines:
    """Per-job deadlines d_j(T) for the objective; T is an integer here (objective 'flow')."""

    def __init__(self, inst: Instance, objective: str) -> None:
        self.release = inst.release
        self.objective = objective

    def window(self, T: int) -> np.ndarray:
        """d_j − r_j per job (the slots a unit job may use: r_j .. d_j − 1)."""
        return np.full(self.release.shape[0], T, dtype=np.int64)

    def deadline(self, T: int) -> np.ndarray:
        return self.release + self.window(T)

    def value(self, completion: np.ndarray) -> int:
        """The objective of a schedule with these completion times."""
        return int(np.max(completion - self.release))


# ----------------------------------------------------------------------------- bounds
@njit(cache=True)
def _pool_bound(jobs, release, work, cap):
    """max over windows [a, b] of ⌈(W[a, b] − cap·(b − a)) / cap⌉ for the listed jobs (sorted
    by release): their work W must fit on ``cap`` machines within [a, b + T)."""
    best = 0
    cur = 0
    prev = -1
    for q in range(jobs.shape[0]):
        j = jobs[q]
        r = release[j]
        if q == 0:
            cur = work[j]
        elif r == prev:
            cur += work[j]
        else:
            carry = cur - cap * (r - prev)
            cur = work[j] + (carry if carry > 0 else 0)
        prev = r
        if cur > best:
            best = cur
    return (best + cap - 1) // cap


@njit(cache=True)
def _set_keys(indptr, indices):
    """A hash of each job's eligible set (order-free); collisions only weaken the bound."""
    n = indptr.shape[0] - 1
    keys = np.empty(n, dtype=np.int64)
    for j in range(n):
        h = np.int64(0)
        for k in range(indptr[j], indptr[j + 1]):
            x = np.int64(indices[k]) * np.int64(-7046029254386353131) + np.int64(0x632BE59BD9B4E019)
            x ^= x >> 29
            x *= np.int64(-4658895280553007687)
            h += x ^ (x >> 32)
        keys[j] = h
    return keys


@njit(cache=True)
def _group_bounds(order, keys, release, work, indptr, indices, m):
    """The pool bound of every group of jobs with the same set key, capacity = |union of sets|."""
    n = order.shape[0]
    stamp = np.full(m, -1, dtype=np.int64)
    best = 0
    s = 0
    while s < n:
        e = s
        while e < n and keys[order[e]] == keys[order[s]]:
            e += 1
        cap = 0
        for q in range(s, e):
            j = order[q]
            for k in range(indptr[j], indptr[j + 1]):
                if stamp[indices[k]] != s:
                    stamp[indices[k]] = s
                    cap += 1
        b = _pool_bound(order[s:e], release, work, cap)
        if b > best:
            best = b
        s = e
    return best


def _counting_bound(inst: Instance) -> int:
    """max(p_max, the work bound over all jobs on m machines and over each eligible-set group)."""
    order = inst.arrival_order()
    lb = max(int(inst.size.max()), int(_pool_bound(order, inst.release, inst.size, inst.m)))
    keys = _set_keys(inst.indptr, inst.indices)
    grouped = np.lexsort((np.arange(inst.n), inst.release, keys))
    return max(lb, int(_group_bounds(grouped, keys, inst.release, inst.size, inst.indptr,
                                     inst.indices, inst.m)))


def _list_schedule(inst: Instance) -> tuple[np.ndarray, np.ndarray]:
    return mk.list_schedule(inst.arrival_order(), inst.release, inst.size, inst.indptr,
                            inst.indices, inst.m)


def _edf_value(inst: Instance, dl: _Deadlines, machine: np.ndarray, T: int) -> int:
    """Max flow of the EDF schedule (deadlines at T) of a fixed assignment."""
    n = inst.n
    rank = np.empty(n, dtype=np.int64)
    rank[inst.arrival_order()] = np.arange(n)
    jobs = np.lexsort((rank, inst.release, machine))
    ptr = np.searchsorted(machine[jobs], np.arange(inst.m + 1)).astype(np.int64)
    completion = mk.edf_completion(ptr, jobs.astype(np.int64), inst.release, inst.size,
                                   dl.deadline(T).astype(np.float64), rank)
    return dl.value(completion)


def _position_in_row(inst: Instance, machine: np.ndarray) -> np.ndarray:
    """For each job, the CSR entry of its machine."""
    owner = np.repeat(np.arange(inst.n), np.diff(inst.indptr))
    return np.flatnonzero(inst.indices == machine[owner])


# ----------------------------------------------------------------------------- unit jobs
class _UnitMatcher:
    """Feasibility of T for unit jobs by bipartite matching (module docstring)."""

    def __init__(self, inst: Instance, dl: _Deadlines, machine: np.ndarray,
                 completion: np.ndarray) -> None:
        self.inst, self.dl = inst, dl
        self.order = inst.arrival_order()
        self.owner = np.repeat(np.arange(inst.n, dtype=np.int64), np.diff(inst.indptr))
        ent = np.lexsort((self.owner, inst.release[self.owner], inst.indices))
        self.ent = ent.astype(np.int64)
        self.ent_ptr = np.searchsorted(inst.indices[ent], np.arange(inst.m + 1)).astype(np.int64)
        self.base = np.empty(inst.indices.size, dtype=np.int64)
        # The list schedule as the first matching: slot = completion - 1.
        self.match_k = _position_in_row(inst, machine).astype(np.int64)
        self.match_off = (completion - 1 - inst.release).astype(np.int64)

    def slots(self, T: int) -> int:
        return int(mk.slot_bases(self.ent_ptr, self.ent, self.owner, self.inst.release,
                                 self.dl.window(T), self.base))

    def feasible(self, T: int, deadline: float) -> bool | None:
        """Whether T is feasible; ``None`` if the clock ran out first."""
        wl = self.dl.window(T)
        R = self.slots(T)
        match_r = np.full(R, -1, dtype=np.int32)
        mk.seed_matching(self.match_k, self.match_off, wl, self.base, match_r)
        mk.greedy_fill(self.order, self.inst.indptr, self.base, wl, self.match_k,
                       self.match_off, match_r)
        while True:
            cnt, finished = mk.hopcroft_karp(self.inst.indptr, self.base, wl, self.match_k,
                                             self.match_off, match_r, _HK_CHUNK)
            if cnt == self.inst.n:
                # the matching's own objective (slot r_j + off completes at r_j + off + 1)
                self.achieved = self.dl.value(self.inst.release + self.match_off + 1)
                return True
            if finished:
                return False
            if time.perf_counter() > deadline:
                return None


def _opt_unit(inst: Instance, dl: _Deadlines, t0: float, deadline: float,
              counting: bool = True) -> OptResult:
    """Bisection with the matching test (``counting=False``: from T = 1, for tests)."""
    machine, completion = _list_schedule(inst)
    hi = dl.value(completion)
    lo = max(1, _counting_bound(inst)) if counting else 1
    if lo >= hi:
        return OptResult(float(hi), "optimal", float(hi), "list-schedule+counting-bound",
                         time.perf_counter() - t0)
    matcher = _UnitMatcher(inst, dl, machine, completion)
    need = matcher.slots(hi - 1)  # the largest probe
    if need > MAX_SLOTS:
        raise SolverLimitError(
            f"field 'release': the unit max-flow matching would need {need} (machine, slot) nodes "
            f"(eligible machines × time windows of length up to {hi - 1}), more than the limit "
            f"{MAX_SLOTS}")
    lo, hi, complete = _bisect(matcher.feasible, lo, hi, deadline,
                               on_feasible=lambda: matcher.achieved)
    status = "optimal" if complete else "timeout"
    return OptResult(float(hi), status, float(lo if not complete else hi), "hopcroft-karp",
                     time.perf_counter() - t0)


def _bisect(feasible, lo: int, hi: int, deadline: float, on_feasible=None):
    """Least feasible T in [lo, hi] (hi feasible). ``feasible(T, deadline)`` returns True,
    False, or None (ran out of time). Stops early if the clock says the next probe would
    overrun. Returns (lo, hi, complete)."""
    last = 0.0
    while lo < hi:
        now = time.perf_counter()
        if now + last > deadline:
            return lo, hi, False
        mid = (lo + hi) // 2
        ok = feasible(mid, deadline)
        if ok is None:
            return lo, hi, False
        if ok:
            hi = mid if on_feasible is None else min(mid, on_feasible())
        else:
            lo = mid + 1
        last = max(last, time.perf_counter() - now)
    return lo, hi, True


# ----------------------------------------------------------------------------- migratory bound
def _migratory_network(inst: Instance, dl: _Deadlines, T: int):
    """The §8.2 network for deadlines at T, or its edge count if above MAX_FLOW_EDGES."""
    n = inst.n
    release = inst.release
    dline = dl.deadline(T)
    pts = np.unique(np.concatenate([release, dline]))
    lo_i = np.searchsorted(pts, release)
    hi_i = np.searchsorted(pts, dline)
    nint = hi_i - lo_i  # intervals inside each job's window
    deg = np.diff(inst.indptr)
    single = deg == 1
    edges = n + int(np.sum(np.where(single, nint, nint * (1 + deg))))
    # machine-interval nodes: at most one per (eligible entry, interval)
    edges += int(np.sum(nint * deg))
    if edges > MAX_FLOW_EDGES:
        return edges
    total = int(inst.size.sum())
    length = np.minimum(np.diff(pts), total)
    K = pts.size - 1
    # job-interval pairs
    pj = np.repeat(np.arange(n), nint)
    starts = np.repeat(lo_i - np.cumsum(nint) + nint, nint) + np.arange(pj.size)
    pk = starts  # interval index of each pair
    cap_pair = np.minimum(length[pk], inst.size[pj])
    # (j, I) -> (i, I) for each eligible i
    pdeg = deg[pj]
    e_pair = np.repeat(np.arange(pj.size), pdeg)
    within = np.arange(e_pair.size) - np.repeat(np.cumsum(pdeg) - pdeg, pdeg)
    e_mach = inst.indices[inst.indptr[pj[e_pair]] + within]
    mi_key = e_mach.astype(np.int64) * K + pk[e_pair]
    mi_keys, mi_node = np.unique(mi_key, return_inverse=True)
    # nodes: 0 = s, 1..n jobs, then pairs (only for multi-machine jobs), then machine-intervals, sink
    multi_pair = ~single[pj]
    pair_node = np.full(pj.size, -1, dtype=np.int64)
    pair_node[multi_pair] = 1 + n + np.arange(int(multi_pair.sum()))
    mi0 = 1 + n + int(multi_pair.sum())
    sink = mi0 + mi_keys.size
    mi_len = length[mi_keys % K]
    e_multi = multi_pair[e_pair]
    tails = np.concatenate([
        np.zeros(n, dtype=np.int64),                          # s -> j
        1 + pj[multi_pair],                                   # j -> (j, I)
        1 + pj[e_pair[~e_multi]],                             # j -> (i, I), single machine
        pair_node[e_pair[e_multi]],                           # (j, I) -> (i, I)
        mi0 + np.arange(mi_keys.size),                        # (i, I) -> t
    ])
    heads = np.concatenate([
        1 + np.arange(n), pair_node[multi_pair], mi0 + mi_node[~e_multi], mi0 + mi_node[e_multi],
        np.full(mi_keys.size, sink),
    ])
    caps = np.concatenate([
        inst.size, cap_pair[multi_pair], cap_pair[e_pair[~e_multi]], cap_pair[e_pair[e_multi]],
        mi_len,
    ]).astype(np.int32)
    graph = csr_array((caps, (tails, heads)), shape=(sink + 1, sink + 1))
    return graph, sink


def _migratory_feasible(inst: Instance, dl: _Deadlines, T: int) -> bool | int:
    """True/False, or the network's edge count when it is too large to build."""
    net = _migratory_network(inst, dl, T)
    if isinstance(net, int):
        return net
    graph, sink = net
    return bool(maximum_flow(graph, 0, sink).flow_value == int(inst.size.sum()))


def _migratory_bisect(inst: Instance, dl: _Deadlines, lo: int, hi: int, deadline: float):
    """Least T in [lo, hi] feasible for the migratory relaxation (hi: a feasible schedule).
    Returns (bound, complete, note); the bound is proven even when incomplete."""
    note = ""
    last = 0.0
    top = hi  # probes at or above ``top`` are known feasible or too large
    while lo < top:
        now = time.perf_counter()
        if now + last > deadline:
            return lo, False, "time limit"
        mid = (lo + top) // 2
        ok = _migratory_feasible(inst, dl, mid)
        if not isinstance(ok, bool):
            note = f"network too large: {ok} edges > {MAX_FLOW_EDGES}"
            top = mid
            continue
        if ok:
            top = hi = mid
        else:
            lo = mid + 1
        last = max(last, time.perf_counter() - now)
    return lo, lo == hi, note


def max_flow_lower_bound(inst: Instance, objective: str = "flow", time_limit: float = 60.0) -> int:
    """The migratory max-flow lower bound of §8.2 (with the counting bounds); exact for unit
    sizes. Raises SolverLimitError if the total size exceeds int32 (scipy's capacities)."""
    t0 = time.perf_counter()
    _check_args(objective, time_limit)
    _check_flow_total(inst)
    dl = _Deadlines(inst, objective)
    _, completion = _list_schedule(inst)
    hi = dl.value(completion)
    lo = min(_counting_bound(inst), hi)
    return _migratory_bisect(inst, dl, lo, hi, t0 + time_limit)[0]


def _check_flow_total(inst: Instance) -> None:
    total = int(inst.size.sum())
    if total >= _MAX_FLOW_TOTAL:
        raise SolverLimitError(
            f"field 'size': total size {total} is too large for the migratory max-flow bound "
            f"(scipy's maximum_flow keeps capacities in int32: the total must be < {_MAX_FLOW_TOTAL})")


# ----------------------------------------------------------------------------- MIP
@njit(cache=True)
def _windows(ptr, by_rel, by_dl, release, deadline, size, count_only, rows_ptr, cols, rhs,
             max_rows, max_nnz):
    """Per machine i, the window rows of §8.2: ``by_rel``/``by_dl`` list machine i's CSR entries
    (index into release/deadline/size via the arrays given per entry) sorted by release / by
    deadline. A window [a, b] is kept when a is a release, b a deadline, some job with r = a
    has d ≤ b (else a larger a gives the same set), b is the deadline of a job of the set, and
    the set's total size exceeds b − a (else it always holds). Counts rows and nonzeros (stops
    past the limits); with ``count_only`` False also fills rows_ptr/cols/rhs."""
    nrows = 0
    nnz = 0
    m = ptr.shape[0] - 1
    memb = np.empty(by_dl.shape[0], dtype=np.int64)
    for i in range(m):
        s, e = ptr[i], ptr[i + 1]
        q = s
        while q < e:
            a = release[by_rel[q]]
            # least deadline among jobs released exactly at a
            dmin = deadline[by_rel[q]]
            q2 = q
            while q2 < e and release[by_rel[q2]] == a:
                if deadline[by_rel[q2]] < dmin:
                    dmin = deadline[by_rel[q2]]
                q2 += 1
            load = 0
            members = 0
            for u in range(s, e):
                k = by_dl[u]
                if release[k] < a:
                    continue
                load += size[k]
                if not count_only:
                    memb[members] = k
                members += 1
                b = deadline[k]
                if u + 1 < e and deadline[by_dl[u + 1]] == b:
                    continue  # take every job with this deadline first
                if b < dmin or load <= b - a:
                    continue
                if not count_only:
                    rhs[nrows] = b - a
                    rows_ptr[nrows] = nnz
                    for w in range(members):
                        cols[nnz + w] = memb[w]
                nrows += 1
                nnz += members
                if nrows > max_rows or nnz > max_nnz:
                    return nrows, nnz
            q = q2
    if not count_only:
        rows_ptr[nrows] = nnz
    return nrows, nnz


class _Mip:
    """The §8.2 MIP feasibility test of a given T (columns: the CSR entries)."""

    def __init__(self, inst: Instance, dl: _Deadlines, seed: int) -> None:
        self.inst, self.dl, self.seed = inst, dl, seed
        owner = np.repeat(np.arange(inst.n, dtype=np.int64), np.diff(inst.indptr))
        self.owner = owner
        self.rel = inst.release[owner]
        self.size = inst.size[owner]
        self.by_mach = np.searchsorted(np.sort(inst.indices), np.arange(inst.m + 1)).astype(np.int64)
        self.too_large = ""
        self.note = ""
        per_machine = np.diff(self.by_mach)
        self.scan = int(np.sum(per_machine.astype(np.float64) ** 2))  # the row search's cost

    def _rows(self, T: int):
        if self.scan > MAX_MIP_SCAN:
            self.too_large = (f"MIP too large: building its window rows scans {self.scan} "
                              f"(machine, job) pairs > {MAX_MIP_SCAN}")
            return None
        dline = self.dl.deadline(T)[self.owner]
        by_rel = np.lexsort((dline, self.rel, self.inst.indices)).astype(np.int64)
        by_dl = np.lexsort((self.rel, dline, self.inst.indices)).astype(np.int64)
        args = (self.by_mach, by_rel, by_dl, self.rel, dline, self.size)
        dummy_i = np.zeros(1, dtype=np.int64)
        nrows, nnz = _windows(*args, True, dummy_i, dummy_i, dummy_i, MAX_MIP_ROWS, MAX_MIP_NONZEROS)
        if nrows > MAX_MIP_ROWS or nnz > MAX_MIP_NONZEROS:
            self.too_large = (f"MIP too large at T = {T}: more than {MAX_MIP_ROWS} window rows or "
                              f"{MAX_MIP_NONZEROS} nonzeros")
            return None
        rows_ptr = np.zeros(nrows + 1, dtype=np.int64)
        cols = np.zeros(max(nnz, 1), dtype=np.int64)
        rhs = np.zeros(max(nrows, 1), dtype=np.int64)
        _windows(*args, False, rows_ptr, cols, rhs, MAX_MIP_ROWS, MAX_MIP_NONZEROS)
        return rows_ptr, cols[:nnz], rhs[:nrows]

    def probe(self, T: int, deadline: float):
        """(True, assignment) | (False, None) | (None, None) on timeout or too large."""
        inst = self.inst
        rows = self._rows(T)
        if rows is None:
            return None, None
        rows_ptr, cols, rhs = rows
        if rhs.size and int(rhs.max()) > MAX_MIP_COEF:
            self.too_large = (f"MIP coefficients too large at T = {T}: a window of length "
                              f"{int(rhs.max())} > {MAX_MIP_COEF}")
            return None, None
        n, nnz = inst.n, inst.indices.size
        h = quiet_highs()
        h.setOptionValue("random_seed", int(self.seed))
        inf = highspy.kHighsInf
        h.addVars(nnz, np.zeros(nnz), np.ones(nnz))
        h.changeColsIntegrality(nnz, np.arange(nnz, dtype=np.int32),
                                np.full(nnz, highspy.HighsVarType.kInteger))
        h.addRows(n, np.ones(n), np.ones(n), nnz, inst.indptr[:-1].astype(np.int32),
                  np.arange(nnz, dtype=np.int32), np.ones(nnz))
        if rhs.size:
            h.addRows(rhs.size, np.full(rhs.size, -inf), rhs.astype(np.float64), cols.size,
                      rows_ptr[:-1].astype(np.int32), cols.astype(np.int32),
                      self.size[cols].astype(np.float64))
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return None, None
        h.setOptionValue("time_limit", float(remaining))
        status = run_checked(h, "max-flow-time MIP")
        if status == highspy.HighsModelStatus.kInfeasible:
            return False, None
        if status == highspy.HighsModelStatus.kOptimal:
            x = np.asarray(h.getSolution().col_value)
            chosen = np.flatnonzero(x > 0.5)
            machine = np.empty(n, dtype=np.int64)
            machine[self.owner[chosen]] = inst.indices[chosen]
            return True, machine
        if status == highspy.HighsModelStatus.kTimeLimit:
            return None, None
        raise RuntimeError(f"max-flow-time MIP: unexpected HiGHS status {h.modelStatusToString(status)}")


def _opt_sized(inst: Instance, dl: _Deadlines, t0: float, deadline: float, seed: int,
               counting: bool = True, migratory: bool = True) -> OptResult:
    """Migratory bound, then the MIP bisection. Works for unit sizes too; tests force it there,
    and turn the bounds off (``counting``, ``migratory``) to exercise the MIP alone."""
    machine, completion = _list_schedule(inst)
    hi = dl.value(completion)
    lo = min(_counting_bound(inst) if counting else int(inst.size.max()), hi)
    note = ""
    if not migratory:
        pass
    elif lo < hi and int(inst.size.sum()) < _MAX_FLOW_TOTAL:
        lo, _, note = _migratory_bisect(inst, dl, lo, hi, deadline)
    elif lo < hi:
        note = "total size beyond int32: no max-flow bound"
    solver = "migratory-maxflow+list-schedule"
    if lo >= hi:
        return OptResult(float(hi), "optimal", float(hi), solver, time.perf_counter() - t0)
    if time.perf_counter() >= deadline:
        return OptResult(float(hi), "timeout", float(lo), solver + (f" ({note})" if note else ""),
                         time.perf_counter() - t0)
    mip = _Mip(inst, dl, seed)
    best = {"hi": hi}

    def feasible(T, dl_):
        ok, assign = mip.probe(T, dl_)
        if ok:
            value = _edf_value(inst, dl, assign, T)  # the schedule itself, not HiGHS's word
            best["hi"] = min(best["hi"], value)
            if value > T:  # HiGHS's tolerances accepted an infeasible assignment
                mip.note = f"HiGHS answer at T = {T} fails the EDF check"
                return None
        return ok

    # Plain bisection: infeasible probes (proofs) are the expensive ones, so probing the bound
    # first cost a whole 20 s budget on a 400-job instance where bisection found 15 vs 23.
    lo, hi, complete = _bisect(feasible, lo, hi, deadline, on_feasible=lambda: best["hi"])
    if mip.too_large:
        what = "migratory-maxflow" if migratory and not note.startswith("total") else "counting-bound"
        notes = "; ".join(x for x in (note, mip.too_large) if x)
        return OptResult(float("nan"), "bound", float(lo), f"{what} ({notes})",
                         time.perf_counter() - t0)
    status = "optimal" if complete else "timeout"
    hi = min(hi, best["hi"])
    solver = "highs-mip" + (f" ({mip.note})" if mip.note else "")
    return OptResult(float(hi), status, float(hi if complete else lo), solver,
                     time.perf_counter() - t0)


# ----------------------------------------------------------------------------- entry point
def opt_max_flow(inst: Instance, objective: str = "flow", time_limit: float = 60.0,
                 seed: int = 0) -> OptResult:
    """Optimal max flow time of ``inst`` (restricted assignment, preemptive, non-migratory,
    no rejection, speed 1), spec §8.2; see the module docstring for methods and limits.

    ``status="optimal"``: ``value`` is OPT. ``"timeout"``: ``value`` is the best schedule found
    and ``lower_bound`` the best proven bound. ``"bound"``: only a lower bound (the MIP was too
    large), ``value`` is nan."""
    t0 = time.perf_counter()
    _check_args(objective, time_limit)
    deadline = t0 + float(time_limit)
    dl = _Deadlines(inst, objective)
    if inst.unit_sizes:
        return _opt_unit(inst, dl, t0, deadline)
    return _opt_sized(inst, dl, t0, deadline, seed)
