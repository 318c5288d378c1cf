"""Exact offline optimum of MaxFlowTime and its weighted versions, docs/models/rejection-model.md §8.2–§8.3: restricted
assignment, preemptive, non-migratory, every job served at speed 1 (OPT rejects nothing, §1.2).

Objectives (``objective=``), each the max over jobs of w_j·F_j with the flow weight of the
problem table (:mod:`schedbench.scheduling.problems`, :data:`OBJECTIVE_WEIGHT`): ``"flow"``
(w = 1), ``"weighted"`` (w = ``w_flow``), ``"genwtd"`` (w^f = ``w_flow``; w^r plays no part, OPT
rejects nothing), ``"stretch"`` (w = 1/p_j, so d_j = r_j + T·p_j). Values are computed as the
validator does, float64 ``w_j * F_j``.

Everything is organised around per-job deadlines d_j = r_j + T/w_j: T is feasible iff some
non-migratory preemptive schedule meets every deadline, and OPT is the least feasible T, found
by bisection between a proven lower bound and a feasible schedule.

* **Candidate values (exact, no tolerance).** With integer data every completion time is an
  integer, so a real deadline r_j + T/w_j allows exactly the completions ≤ r_j + L_j(T), with
  L_j(T) = max{f integer : w_j·f ≤ T}; feasibility changes only where some w_j·f crosses T,
  and the objective of every schedule is such a value. So OPT is the least feasible value of
  the candidate set {w·f : w a job weight, f ≥ 1 integer}. For ``"flow"`` that is the integers
  (the original integer code path, unchanged). Otherwise (:class:`_RealGrid`) the set is kept
  implicitly, one arithmetic progression per distinct weight; the bisection probes the median
  candidate of the open range (found by bisecting the value while counting Σ_w ⌊x/w⌋, O(#distinct
  weights) per step), so it needs ~log2(#candidates) probes however many distinct weights there
  are (10^5 distinct real weights: 0.35 s on the unit benchmark). The products are float64
  ``w*f`` exactly as the objective is computed, and f ↦ w*f is monotone, so the search is exact
  — no relative-tolerance bisection is needed and ``"optimal"`` always means exact. The only
  limit: Σ over distinct weights of T/w must stay below 2^50 (:class:`SolverLimitError` naming
  ``w_flow``, or ``size`` for stretch), far beyond what the matching or the MIP could take.
* **Bounds.** Upper: the FIFO list schedule (each job, in arrival order, to the eligible
  machine where it starts earliest; FIFO is EDF for deadlines r_j + T), valued with the
  objective's weights. Lower: max_j p_j and the counting (work) bound — jobs with the same
  eligible set S released in [a, b] need their work done on |S| machines within [a, b + T).
  Weighted: max_j w_j·p_j (stretch: 1) and, for up to 8 thresholds θ among the weights,
  θ × the counting bound of the jobs with w_j ≥ θ (their flows are ≤ T/θ).
* **Unit sizes, integer releases: exact by matching** (§8.2). T is feasible iff every job can
  be matched to a distinct (machine i ∈ S_j, slot t) with r_j ≤ t ≤ r_j + L_j(T) − 1
  (L_j(T) = T for "flow", ⌊T/w_j⌋ otherwise: completion t + 1 ≤ r_j + T/w_j). Hopcroft–Karp
  in numba on the implicit graph (:mod:`._matching`), with per-machine time compression; each
  probe starts from the previous probe's matching (kept pairs still fit) plus a greedy fill.
  The compressed right side is limited to :data:`MAX_SLOTS` nodes (a :class:`SolverLimitError`
  naming the field beyond it).
* **General sizes.** (a) The migratory max-flow lower bound of §8.2 (event points r_j, d_j;
  s→j cap p_j, j→(j,I) cap |I|, (j,I)→(i,I), (i,I)→t cap |I|; feasible iff the flow is Σp),
  bisected with ``scipy.sparse.csgraph.maximum_flow``; probes whose network exceeds
  :data:`MAX_FLOW_EDGES` edges are not run (the bound proven so far stands, ``solver`` says
  so). (b) The exact test of a T is the window model of §8.2: binary y_ij, Σ_i y_ij = 1, and per
  machine and window [a, b] (a a release, b a deadline) Σ_{j: a ≤ r_j, d_j ≤ b} p_j y_ij ≤ b − a
  (EDF on one preemptive machine makes this exact). Default (``n ≥`` :data:`LAZY_MIN_JOBS`):
  **lazy windows** (:mod:`._lazy_windows`): a probe first repairs the best known assignment by a
  tabu local search on the EDF tardiness; if that fails it solves the assignment with only the
  windows found so far (CP-SAT by default), re-schedules each machine's jobs by EDF, and adds,
  for each machine that misses a deadline, the most violated window of its busy period (as the
  full constraint over every job eligible on the machine), until EDF meets every deadline
  (feasible, a real schedule) or the relaxed model is infeasible (a proof). Windows are kept
  across probes as (machine, a, job j*) and re-evaluated at each T with b = d_{j*}(T) — sound
  in both directions, as any window evaluated at the probe's own T is valid there. Bracket:
  the migratory bound below; above, the best of the FIFO list schedule, least-work (each job to
  the eligible machine with the least unfinished work) and an optional caller's schedule
  (``_opt_sized(..., upper=machine_per_job)``), then the local search inside every probe.
  Search: galloping down from the best schedule (1, 2, 4, … candidates below it; each feasible
  probe's schedule value becomes the new upper bound) until a probe fails, then bisection; the
  local search makes the feasible probes cheap and galloping keeps the expensive proofs few.
  CP-SAT vs HiGHS (same probes, :data:`._lazy_windows.DEFAULT_SOLVER`): at m = 10, n = 1000,
  T = 41, CP-SAT took 11 lazy rounds and 6.3 s CPU, HiGHS 27 rounds and 11.6 s; on the 400-job
  benchmark instance (60 s each) CP-SAT proved a lower bound of 14 against HiGHS's 13 — so CP-SAT
  (one worker, fixed ``random_seed``) is the default. Its presolve stays on: off, it followed the
  hint more closely on that feasible probe (3 rounds instead of 12), but the infeasibility proof
  of T = 13 on the 400-job instance took 35 s CPU instead of 11 s, and proofs are the bottleneck.
  Search order (:data:`SEARCH`): galloping reached 38 in 120 s at m = 10, n = 1000 (seed 0);
  "bottom-up" (prove the lower bound infeasible, raise it) stayed on its first proof (T = 33,
  the migratory bound) for the whole 110 s of CPU and ended at the descent's 41. Below :data:`LAZY_MIN_JOBS` jobs, and with
  ``_opt_sized(..., method="mip-full")``, the earlier method: every window row up front, HiGHS,
  plain bisection, each feasible probe re-scheduled by EDF. Both skip a model above
  :data:`MAX_MIP_ROWS` window rows or :data:`MAX_MIP_NONZEROS` nonzeros (``status="bound"``,
  ``value=nan``). ``solver`` reads ``lazy-cpsat (k probes, gap g)`` (gap = (value − lower
  bound)/value, shown unless optimal) or ``highs-mip``.

* **Which exact model** (:func:`exact_method`, measured by benchmarks/bench_compact.py): fewer
  than :data:`LAZY_MIN_JOBS` jobs, the full window MIP; **max flow** with up to
  :data:`BACKLOG_MAX_JOBS` jobs, the **backlog model** of :mod:`._compact` as the probe's 0–1
  solve (``solver`` reads ``lazy-backlog``): with one window T for every job EDF is FIFO, so
  per machine the work left after each release point is a chain W_k ≥ W_{k−1} − Δ_k + A_k,
  W_k ≥ A_k, W_k ≤ T — every window row in linearly many rows, one CP-SAT solve per probe, no
  lazy rounds. On ``flow_sized_m10`` (n = 1000, m = 10) at 60 units it alone proved instance
  0000 (OPT 32; the lazy windows ended at [29, 35]) and left gaps of 2.8 % and 11.8 % (lazy:
  2.8 %, 14.3 %); with the window bound taking its share, 3.0 %, 2.8 %, 11.8 %. Everything
  else, the lazy windows; the interval **transportation** model (``solver="transport"``, exact
  for any deadlines) lost to them on every max-stretch and weighted instance measured and is
  kept for comparison only.
* **Window bound** (:func:`_window_bound`, 2·:data:`WINDOW_JOBS` ≤ n ≤ :data:`WINDOW_MAX_JOBS`):
  the optimum of the jobs of a release window is a lower bound (dropping jobs never raises it); after the descent, when
  a gap remains, every window of 200 consecutive jobs is solved with a tenth of the work left
  (at most :data:`WINDOW_WORK` units each). On ``stretch_pareto15_m10/0001`` the jobs 700–899
  have OPT 2 — above the counting and migratory bounds (1.875).

``time_limit`` (seconds, finite, > 0) covers the whole call: bisection stops when the time is
up (or when the next probe would overrun it, judged by the longest so far); matching probes run
Hopcroft–Karp in chunks of phases between clock checks; HiGHS gets what is left. Then
``status="timeout"``, ``value`` = the best schedule found, ``lower_bound`` = the best proven
bound. Overruns left: the bounds before the first clock check, one chunk of phases, one move of
a lazy probe's local search (it is charged and stops at what is left of both limits,
:data:`._lazy_windows.LS_OPS_PER_UNIT`), and HiGHS's / CP-SAT's own stop (measured:
1.4 s over a 20 s limit on a 400-job MIP).

Measured (benchmarks/bench_opt_flow.py, benchmarks/README.md): unit jobs, n = 10^5, m = 100,
d = 2, Poisson load 0.9: 0.04 s; load 1.0: 0.6–1.6 s; the same with w_flow uniform on {1, 4, 16}
(OPT 32 at both loads): 0.06–0.08 s and 1.0–1.4 s. Sized jobs: see the scale part of the
benchmark — the migratory bound is far below OPT there (33 against ≤ 36 at m = 10, n = 1000),
so proving optimality needs infeasibility proofs with a large integrality gap, the hard part.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time

import highspy
import numpy as np
from scipy.sparse import csr_array
from scipy.sparse.csgraph import maximum_flow

from schedbench.hall.effort import DEFAULT_TIME_LIMIT, DEFAULT_WORK_LIMIT, Effort, work_clock
from schedbench.hall.jit import compiled
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import _lazy_windows as lw
from schedbench.scheduling.offline import _matching as mk
from schedbench.scheduling.offline.makespan import SolverLimitError
from schedbench.scheduling.offline.result import OptResult, check_solve_arguments

_log = logging.getLogger(__name__)

__all__ = [
    "opt_max_flow",
    "max_flow_lower_bound",
    "OBJECTIVE_WEIGHT",
    "FLOW_OBJECTIVE",
    "MAX_SLOTS",
    "MAX_FLOW_EDGES",
    "MAX_MIP_ROWS",
    "MAX_MIP_NONZEROS",
    "MAX_MIP_SCAN",
    "MAX_MIP_COEF",
    "LAZY_MIN_JOBS",
    "BACKLOG_MAX_JOBS",
    "exact_method",
]

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
#: Fewer sized jobs than this: the full window MIP (its model is small, ≤ Σ_i n_i² rows, and its
#: answers and ``solver`` text on small instances stay those of the earlier tested path);
#: otherwise the lazy windows of :mod:`._lazy_windows`.
LAZY_MIN_JOBS = 64
#: The window bound (:func:`_window_bound`, instances of at least twice this many jobs): windows
#: of this many consecutive jobs; the share of the work left they may spend, and at most this many
#: units each.
WINDOW_JOBS = 200
WINDOW_SHARE = 0.1
WINDOW_WORK = 5.0
#: ... not tried above this many jobs (99 windows at 10⁴, where the descent spends the default
#: limits anyway), nor with less than this many units per window.
WINDOW_MAX_JOBS = 2000
WINDOW_MIN_WORK = 0.5
#: Max flow with at most this many sized jobs (and at least :data:`LAZY_MIN_JOBS`): the backlog
#: model (:func:`exact_method`). Above it the local-search descent alone spends the
#: default runs' limits (the 10⁴-job log windows: 0 probes), so the rule is not measured there.
BACKLOG_MAX_JOBS = 5000
#: The lazy search's order of exact probes after the local-search descent: "gallop" (down from
#: the best schedule, then bisection) or "bottom-up" (the lower bound, raised by one candidate
#: per proof, until a probe is feasible).
#: With real candidates (weighted flow, stretch: w_j·f values, dense) the gallop hands over to
#: bisection rather than probe the lower bound itself. Measured at the default 60 units (2026-12-05): on
#: stretch_pareto15_m10/0001 the gallop went from a schedule of 2.38 straight to the window bound 2
#: and spent its 46 units left undecided there ([2, 2.377], gap 15.9 %); bisecting instead probed
#: 2.18 and 2.08 (feasible, 5 s each) before the undecided 2.03: [2, 2.073], gap 3.5 %. For max
#: flow (integer candidates, few) landing on the bound was the cheap proof on flow_sized_m10/0000
#: ([30, 32] vs [29, 34] bisecting), so it is kept there.
SEARCH = "gallop"
#: scipy's maximum_flow keeps capacities in int32.
_MAX_FLOW_TOTAL = 2**31 - 1
#: Hopcroft–Karp phases between two clock checks.
_HK_CHUNK = 8

_OBJECTIVES = ("flow", "weighted", "genwtd", "stretch")
#: The flow weight (column of the problem table, :mod:`schedbench.scheduling.problems`) of each
#: objective: deadlines are d_j = r_j + T/w_j. GenWtd uses w^f = ``w_flow`` (OPT rejects
#: nothing, so w^r plays no part); stretch uses 1/p_j.
OBJECTIVE_WEIGHT = {"flow": "one", "weighted": "w_flow", "genwtd": "w_flow", "stretch": "inverse_size"}
#: The objective that optimises a problem of the table with this flow weight (``solve_opt``).
FLOW_OBJECTIVE = {"one": "flow", "w_flow": "weighted", "inverse_size": "stretch"}
#: Largest window T/w_j (slots) the real-valued search handles: its counts stay exact in float64.
_MAX_WINDOW = 2**50
#: The weighted counting bound tries every distinct weight as a threshold while (thresholds) ×
#: (jobs + eligible entries) stays within this many visits (0.5 s at 10^4 jobs and 850 levels);
#: beyond, the power-of-two classes and :data:`_MAX_THRESHOLDS` evenly spaced levels.
_THRESHOLD_VISITS = 5 * 10**7
_MAX_THRESHOLDS = 64


# ----------------------------------------------------------------------------- arguments
def _check_args(inst, objective, time_limit, seed=0, work_limit=None, func="opt_max_flow") -> None:
    if not isinstance(objective, str) or objective not in _OBJECTIVES:
        raise ValueError(f"argument 'objective' must be one of {', '.join(map(repr, _OBJECTIVES))}, got {objective!r}")
    check_solve_arguments(func, inst, time_limit, seed, work_limit, SolverLimitError)


def _flow_weights(inst: Instance, objective: str) -> np.ndarray | None:
    """w_j of the objective (the same numbers as ``Problem.flow_weights``, so values match the
    validator's max_j w_j·F_j bit for bit); ``None`` for 'flow' (integer arithmetic)."""
    rule = OBJECTIVE_WEIGHT[objective]
    if rule == "one":
        return None
    if rule == "w_flow":
        return np.asarray(inst.w_flow, dtype=np.float64)
    return 1.0 / np.asarray(inst.size, dtype=np.float64)


class _IntGrid:
    """The candidate values of T for 'flow': the positive integers (OPT is an integer)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def window(self, T: int) -> np.ndarray:
        return np.full(self.n, T, dtype=np.int64)

    def first_at_least(self, x) -> int:
        return int(math.ceil(x))

    def next_above(self, x) -> int:
        return int(math.floor(x)) + 1

    def below(self, hi: int) -> int:
        return hi - 1

    def count(self, lo: int, hi: int) -> int:
        return max(0, hi - lo)

    def median(self, lo: int, hi: int) -> int:
        return (lo + hi) // 2

    def nth(self, lo: int, hi: int, k: int) -> int:
        """The k-th candidate (1-based) of [lo, hi), 1 ≤ k ≤ count(lo, hi)."""
        return lo + k - 1

    def check(self, hi) -> None:
        pass


class _RealGrid:
    """The candidate values of a real T: {w·f : w a job weight, f ≥ 1 an integer} (the
    objective of any schedule is one of them, as every F_j is an integer), kept implicitly as
    one arithmetic progression per distinct weight. Products are float64 ``w*f`` exactly as
    the objective is computed, and f ↦ w*f is monotone, so "w_j·F_j ≤ T" ⇔ "F_j ≤ L_j(T)" with
    L_j(T) = max{f : w_j*f ≤ T} (:meth:`window`) holds exactly, not just up to rounding."""

    def __init__(self, weights: np.ndarray, field: str) -> None:
        self.w, self.inv = np.unique(weights, return_inverse=True)
        self.field = field

    def _le(self, x: float) -> np.ndarray:
        """Per distinct weight, #{f ≥ 1 : w*f ≤ x} = max f with w*f ≤ x (as floats)."""
        w = self.w
        f = np.floor(x / w)
        f += w * (f + 1) <= x
        f -= w * f > x
        return f

    def _lt(self, x: float) -> np.ndarray:
        f = self._le(x)
        return f - (self.w * f == x)

    def window(self, T: float) -> np.ndarray:
        return self._le(T)[self.inv].astype(np.int64)

    def first_at_least(self, x: float) -> float:
        return float(np.min(self.w * (self._lt(x) + 1)))

    def next_above(self, x: float) -> float:
        return float(np.min(self.w * (self._le(x) + 1)))

    def below(self, hi: float) -> float:
        return float(np.max(self.w * self._lt(hi)))

    def count(self, lo: float, hi: float) -> int:
        """Candidates in [lo, hi), each weight's progression counted separately."""
        return int(np.sum(self._lt(hi)) - np.sum(self._lt(lo)))

    def median(self, lo: float, hi: float) -> float:
        """The k-th candidate in [lo, hi) with k = count//2 + 1 (the integer grid's (lo+hi)//2)."""
        return self.nth(lo, hi, self.count(lo, hi) // 2 + 1)

    def nth(self, lo: float, hi: float, k: int) -> float:
        """The k-th candidate (1-based, 1 ≤ k ≤ count(lo, hi)) of [lo, hi), by bisecting the
        value until one distinct candidate is left in (a, b]."""
        base = np.sum(self._lt(lo))
        a, b = float(np.nextafter(lo, -np.inf)), float(hi)
        le_a, le_b = self._lt(lo), self._le(b)  # #candidates in [lo, x] = Σ le(x) − base
        for _ in range(2200):  # float bisection ends in ≤ ~2100 steps (adjacent floats)
            vb = float(np.max(self.w * le_b))  # largest candidate ≤ b
            va = float(np.min(self.w * (le_a + 1)))  # least candidate > a
            if va >= vb:
                break
            mid = a + (b - a) / 2
            if not a < mid < b:
                break
            le_m = self._le(mid)
            if np.sum(le_m) - base >= k:
                b, le_b = mid, le_m
            else:
                a, le_a = mid, le_m
        v = float(np.max(self.w * le_b))
        return v if lo <= v < hi else self.first_at_least(lo)

    def check(self, hi: float) -> None:
        """Refuse candidate counts beyond float64's exact integers (absurdly small weights)."""
        top = float(np.sum(hi / self.w))
        if not top <= _MAX_WINDOW:
            raise SolverLimitError(
                f"field '{self.field}': the candidate values of T up to {hi:g} number {top:g} "
                f"(Σ over distinct weights w of T/w; smallest weight {float(self.w[0]):g}), "
                f"beyond {_MAX_WINDOW}"
            )


class _Deadlines:
    """Per-job deadlines d_j(T) = r_j + L_j(T), L_j(T) = ⌊T/w_j⌋ in the exact sense of
    :class:`_RealGrid` (for integer data a real deadline r_j + T/w_j allows the same integer
    completions as its floor); T is an integer for 'flow', a float otherwise."""

    def __init__(self, inst: Instance, objective: str) -> None:
        self.release = inst.release
        self.objective = objective
        self.weights = _flow_weights(inst, objective)
        if self.weights is None:
            self.grid = _IntGrid(inst.n)
        else:
            self.grid = _RealGrid(self.weights, "size" if objective == "stretch" else "w_flow")

    def window(self, T) -> np.ndarray:
        """d_j − r_j per job (the slots a unit job may use: r_j .. d_j − 1)."""
        return self.grid.window(T)

    def deadline(self, T) -> np.ndarray:
        return self.release + self.window(T)

    def value(self, completion: np.ndarray):
        """The objective max_j w_j·F_j of a schedule with these completion times."""
        if self.weights is None:
            return int(np.max(completion - self.release))
        return float(np.max(self.weights * (completion - self.release)))


# ----------------------------------------------------------------------------- bounds
@compiled
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


@compiled
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


@compiled
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
    return _counting_bounds(inst, [None])[0]


def _counting_bounds(inst: Instance, masks) -> list[int]:
    """:func:`_counting_bound` of the jobs selected by each mask (``None``: all): a bound on
    their max flow in any schedule of all the jobs."""
    order = inst.arrival_order()
    keys = _set_keys(inst.indptr, inst.indices)
    grouped = np.lexsort((np.arange(inst.n), inst.release, keys))
    out = []
    for mask in masks:
        o, g = (order, grouped) if mask is None else (order[mask[order]], grouped[mask[grouped]])
        if o.size == 0:
            out.append(0)
            continue
        lb = max(int(inst.size[o].max()), int(_pool_bound(o, inst.release, inst.size, inst.m)))
        out.append(max(lb, int(_group_bounds(g, keys, inst.release, inst.size, inst.indptr, inst.indices, inst.m))))
    return out


def _threshold_levels(inst: Instance, dl: _Deadlines) -> np.ndarray:
    """The thresholds θ the weighted counting bound tries (ascending): every distinct weight when
    affordable (:data:`_THRESHOLD_VISITS`), else for each power of two 2^k the least weight ≥ 2^k
    (the class {w ≥ 2^k}: e.g. the jobs of size ≤ 32 for stretch) and evenly spaced levels. A
    mask {w ≥ θ} is tightest at θ = its least weight, so only distinct weights are ever tried."""
    levels = dl.grid.w
    if levels.size * (inst.n + inst.indices.size) <= _THRESHOLD_VISITS:
        return levels
    lo, hi = math.floor(math.log2(levels[0])), math.ceil(math.log2(levels[-1]))
    pow2 = [levels[np.searchsorted(levels, 2.0**k)] for k in range(lo, hi + 1) if levels[-1] >= 2.0**k]
    spaced = levels[np.unique(np.linspace(0, levels.size - 1, _MAX_THRESHOLDS).round().astype(np.int64))]
    return np.unique(np.concatenate([np.asarray(pow2, dtype=float), spaced]))


def _weighted_counting(inst: Instance, dl: _Deadlines) -> tuple[float, float]:
    """(best θ · counting bound of the jobs with w ≥ θ, that θ) over :func:`_threshold_levels`."""
    w = dl.weights
    levels = _threshold_levels(inst, dl)
    masks = [None if theta <= dl.grid.w[0] else w >= theta for theta in levels]
    best, arg = 0.0, float(levels[0])
    for theta, cb in zip(levels, _counting_bounds(inst, masks)):
        if float(theta * cb) > best:
            best, arg = float(theta * cb), float(theta)
    return best, arg


def _lower_bound(inst: Instance, dl: _Deadlines, counting: bool = True):
    """A proven lower bound on OPT (not yet rounded to a candidate). 'flow': the counting bound
    (``counting=False``: p_max). Weighted: max_j w_j·p_j and, for the thresholds θ among the
    weights (:func:`_threshold_levels`), θ · (counting bound of the jobs with w_j ≥ θ): those
    jobs have F_j ≤ T/θ, so their work V released in [a, b] on the machines S they are confined
    to satisfies V ≤ |S|·(b − a + T/θ)."""
    if dl.weights is None:
        return _counting_bound(inst) if counting else int(inst.size.max())
    best = float(np.max(dl.weights * inst.size))
    if counting:
        best = max(best, _weighted_counting(inst, dl)[0])
    return best


def counting_witness(inst: Instance, objective: str) -> tuple[float, str]:
    """The counting bound of ``inst`` for ``objective`` and its witness in words — the jobs (all,
    or those with w ≥ θ), the machines they are confined to, the release window [a, b] and their
    work V — from which a reader re-derives T ≥ θ·⌈(V − |S|·(b − a))/|S|⌉ by hand."""
    dl = _Deadlines(inst, objective)
    theta, mask = 1.0, None
    if dl.weights is not None:
        _, theta = _weighted_counting(inst, dl)
        mask = None if theta <= dl.grid.w[0] else dl.weights >= theta
    jobs = np.flatnonzero(mask) if mask is not None else np.arange(inst.n)
    order = jobs[np.argsort(inst.release[jobs], kind="stable")]
    best, where, cap = _pool_witness(order, inst.release, inst.size, inst.m), f"all {inst.m} machines", inst.m
    keys = _set_keys(inst.indptr, inst.indices)[order]
    for key in np.unique(keys):
        group = order[keys == key]
        machines = np.unique(np.concatenate([inst.eligible(j) for j in group]))
        got = _pool_witness(group, inst.release, inst.size, machines.size)
        if got[0] > best[0]:
            best, where, cap = got, f"machines {{{', '.join(map(str, machines.tolist()))}}}", machines.size
    bound, a, b, work = (int(x) for x in best)
    if mask is None:
        which = "every job"
    elif objective == "stretch":  # w = 1/p: the class w ≥ θ is the jobs of size ≤ 1/θ
        which = f"the jobs of size ≤ {1 / theta:.6g}"
    else:
        which = f"the jobs with weight ≥ {theta:.6g}"
    text = (
        f"counting: {which} confined to {where}, released in [{a}, {b}], work {work}: their max flow "
        f"≥ ⌈({work} − {cap}·{b - a})/{cap}⌉ = {bound}"
    )
    if objective == "stretch" and mask is not None:
        text += f", so T ≥ {bound}/{1 / theta:.6g} = {theta * bound:.6g}"
    elif dl.weights is not None:
        text += f", so T ≥ {theta:.6g}·{bound} = {theta * bound:.6g}"
    return float(theta * bound), text


@compiled
def _pool_witness(jobs, release, work, cap):
    """:func:`_pool_bound` with its window: (bound, a, b, work released in [a, b])."""
    best, best_a, best_b, best_w = 0, 0, 0, 0
    cur, prev, start, total = 0, -1, 0, 0
    for q in range(jobs.shape[0]):
        j = jobs[q]
        r = release[j]
        if q == 0:
            cur, start, total = work[j], r, work[j]
        elif r == prev:
            cur += work[j]
            total += work[j]
        else:
            carry = cur - cap * (r - prev)
            if carry > 0:
                cur, total = work[j] + carry, total + work[j]
            else:
                cur, start, total = work[j], r, work[j]
        prev = r
        if cur > best:
            best, best_a, best_b, best_w = cur, start, r, total
    return (best + cap - 1) // cap, best_a, best_b, best_w


def _list_schedule(inst: Instance) -> tuple[np.ndarray, np.ndarray]:
    return mk.list_schedule(inst.arrival_order(), inst.release, inst.size, inst.indptr, inst.indices, inst.m)


def _edf_value(inst: Instance, dl: _Deadlines, machine: np.ndarray, T):
    """The objective of the EDF schedule (deadlines at T) of a fixed assignment."""
    n = inst.n
    rank = np.empty(n, dtype=np.int64)
    rank[inst.arrival_order()] = np.arange(n)
    jobs = np.lexsort((rank, inst.release, machine))
    ptr = np.searchsorted(machine[jobs], np.arange(inst.m + 1)).astype(np.int64)
    completion = mk.edf_completion(
        ptr, jobs.astype(np.int64), inst.release, inst.size, dl.deadline(T).astype(np.float64), rank
    )
    return dl.value(completion)


def _position_in_row(inst: Instance, machine: np.ndarray) -> np.ndarray:
    """For each job, the CSR entry of its machine."""
    owner = np.repeat(np.arange(inst.n), np.diff(inst.indptr))
    return np.flatnonzero(inst.indices == machine[owner])


# ----------------------------------------------------------------------------- unit jobs
class _UnitMatcher:
    """Feasibility of T for unit jobs by bipartite matching (module docstring)."""

    def __init__(self, inst: Instance, dl: _Deadlines, machine: np.ndarray, completion: np.ndarray) -> None:
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
        return int(mk.slot_bases(self.ent_ptr, self.ent, self.owner, self.inst.release, self.dl.window(T), self.base))

    def feasible(self, T: int, effort: Effort) -> bool | None:
        """Whether T is feasible; ``None`` if the safety net ran out first (matching is
        polynomial: not charged as work)."""
        wl = self.dl.window(T)
        R = self.slots(T)
        match_r = np.full(R, -1, dtype=np.int32)
        mk.seed_matching(self.match_k, self.match_off, wl, self.base, match_r)
        mk.greedy_fill(self.order, self.inst.indptr, self.base, wl, self.match_k, self.match_off, match_r)
        while True:
            cnt, finished = mk.hopcroft_karp(
                self.inst.indptr, self.base, wl, self.match_k, self.match_off, match_r, _HK_CHUNK
            )
            if cnt == self.inst.n:
                # the matching's own objective (slot r_j + off completes at r_j + off + 1)
                self.achieved = self.dl.value(self.inst.release + self.match_off + 1)
                return True
            if finished:
                return False
            if effort.seconds_left() < 0:
                effort.clock_stop()
                return None


def _opt_unit(inst: Instance, dl: _Deadlines, t0: float, effort: Effort, counting: bool = True) -> OptResult:
    """Bisection with the matching test (``counting=False``: from T = 1, for tests)."""
    machine, completion = _list_schedule(inst)
    hi = dl.value(completion)
    grid = dl.grid
    grid.check(hi)
    if dl.weights is None:
        lo = max(1, _counting_bound(inst)) if counting else 1
    else:  # ≥ max w_j p_j, so every window holds at least one slot
        lo = min(grid.first_at_least(_lower_bound(inst, dl, counting)), hi)
    if lo >= hi:
        return OptResult(float(hi), "optimal", float(hi), "list-schedule+counting-bound", time.perf_counter() - t0)
    matcher = _UnitMatcher(inst, dl, machine, completion)
    top = grid.below(hi)  # the largest probe
    need = matcher.slots(top)
    if need > MAX_SLOTS:
        raise SolverLimitError(
            f"field 'release': the unit max-flow matching would need {need} (machine, slot) nodes "
            f"(eligible machines × time windows of length up to {int(dl.window(top).max())}), "
            f"more than the limit {MAX_SLOTS}"
        )
    lo, hi, complete = _bisect(matcher.feasible, lo, hi, effort, grid, on_feasible=lambda: matcher.achieved)
    status = "optimal" if complete else effort.status
    return OptResult(float(hi), status, float(lo if not complete else hi), "hopcroft-karp", time.perf_counter() - t0)


def _gallop(feasible, lo, hi, effort: Effort, grid, on_feasible=None):
    """Probes down from ``hi`` (a feasible schedule's value) at 1, 2, 4, … candidates below it
    until one is not feasible, which proves a new ``lo`` (:data:`SEARCH`); with real candidates
    it stops, for the bisection, where the next step would probe ``lo`` itself. Arguments and
    result as for :func:`_bisect` (``complete`` False: a limit ran out)."""
    step, last = 1, 0.0
    while grid.count(lo, hi) > 0:
        now = work_clock()
        if effort.exhausted() or now + last > effort.deadline:
            effort.exhausted() or effort.clock_stop()
            return lo, hi, False
        c = grid.count(lo, hi)
        if step >= c > 1 and isinstance(grid, _RealGrid):
            break  # the next step would probe the bound itself (see SEARCH): bisect instead
        T = grid.nth(lo, hi, max(1, c - step + 1))
        ok = feasible(T, effort)
        last = max(last, work_clock() - now)
        if ok is None:
            return lo, hi, False
        if not ok:
            return grid.next_above(T), hi, True
        hi = T if on_feasible is None else min(T, on_feasible())
        step *= 2
    return lo, hi, True


def _bisect(feasible, lo, hi, effort: Effort, grid, on_feasible=None):
    """Least feasible candidate T in [lo, hi] (lo a proven bound and a candidate, hi feasible)
    by bisection over the grid's candidates (for 'flow' the integers: mid = (lo + hi) // 2).
    ``feasible(T, effort)`` returns True, False, or None (a limit ran out). Stops early when
    the work is spent or the clock says the next probe would overrun the safety net. Returns
    (lo, hi, complete)."""
    last = 0.0
    while grid.count(lo, hi) > 0:
        now = work_clock()
        if effort.exhausted():
            return lo, hi, False
        if now + last > effort.deadline:
            effort.clock_stop()
            return lo, hi, False
        mid = grid.median(lo, hi)
        ok = feasible(mid, effort)
        if ok is None:
            return lo, hi, False
        if ok:
            hi = mid if on_feasible is None else min(mid, on_feasible())
        else:
            lo = grid.next_above(mid)
        last = max(last, work_clock() - now)
    return lo, hi, True


# ----------------------------------------------------------------------------- migratory bound
def _migratory_network(inst: Instance, dl: _Deadlines, T):
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
    tails = np.concatenate(
        [
            np.zeros(n, dtype=np.int64),  # s -> j
            1 + pj[multi_pair],  # j -> (j, I)
            1 + pj[e_pair[~e_multi]],  # j -> (i, I), single machine
            pair_node[e_pair[e_multi]],  # (j, I) -> (i, I)
            mi0 + np.arange(mi_keys.size),  # (i, I) -> t
        ]
    )
    heads = np.concatenate(
        [
            1 + np.arange(n),
            pair_node[multi_pair],
            mi0 + mi_node[~e_multi],
            mi0 + mi_node[e_multi],
            np.full(mi_keys.size, sink),
        ]
    )
    caps = np.concatenate(
        [
            inst.size,
            cap_pair[multi_pair],
            cap_pair[e_pair[~e_multi]],
            cap_pair[e_pair[e_multi]],
            mi_len,
        ]
    ).astype(np.int32)
    graph = csr_array((caps, (tails, heads)), shape=(sink + 1, sink + 1))
    return graph, sink


def _migratory_feasible(inst: Instance, dl: _Deadlines, T) -> bool | int:
    """True/False, or the network's edge count when it is too large to build."""
    net = _migratory_network(inst, dl, T)
    if isinstance(net, int):
        return net
    graph, sink = net
    return bool(maximum_flow(graph, 0, sink).flow_value == int(inst.size.sum()))


def _migratory_bisect(inst: Instance, dl: _Deadlines, lo, hi, effort: Effort):
    """Least candidate T in [lo, hi] feasible for the migratory relaxation (hi: a feasible
    schedule). Returns (bound, complete, note); the bound is proven even when incomplete."""
    note = ""
    last = 0.0
    top = hi  # probes at or above ``top`` are known feasible or too large
    grid = dl.grid
    while grid.count(lo, top) > 0:
        now = work_clock()
        if now + last > effort.deadline:
            effort.clock_stop()
            return lo, False, "time limit"
        mid = grid.median(lo, top)
        ok = _migratory_feasible(inst, dl, mid)
        if not isinstance(ok, bool):
            note = f"network too large: {ok} edges > {MAX_FLOW_EDGES}"
            top = mid
            continue
        if ok:
            top = hi = mid
        else:
            lo = grid.next_above(mid)
        last = max(last, work_clock() - now)
    return lo, lo == hi, note


def max_flow_lower_bound(inst: Instance, objective: str = "flow", time_limit: float = 60.0):
    """The migratory max-flow lower bound of §8.2/§8.3 (with the counting bounds) on
    max_j w_j·F_j: an int for 'flow', a float otherwise; exact for unit sizes. Raises
    SolverLimitError if the total size exceeds int32 (scipy's capacities)."""
    _check_args(inst, objective, time_limit, func="max_flow_lower_bound")
    _check_flow_total(inst)
    dl = _Deadlines(inst, objective)
    _, completion = _list_schedule(inst)
    hi = dl.value(completion)
    dl.grid.check(hi)
    lo = min(dl.grid.first_at_least(_lower_bound(inst, dl)), hi)
    return _migratory_bisect(inst, dl, lo, hi, Effort(None, time_limit))[0]


def _check_flow_total(inst: Instance) -> None:
    total = int(inst.size.sum())
    if total >= _MAX_FLOW_TOTAL:
        raise SolverLimitError(
            f"field 'size': total size {total} is too large for the migratory max-flow bound "
            f"(scipy's maximum_flow keeps capacities in int32: the total must be < {_MAX_FLOW_TOTAL})"
        )


# ----------------------------------------------------------------------------- MIP
@compiled
def _windows(ptr, by_rel, by_dl, release, deadline, size, count_only, rows_ptr, cols, rhs, max_rows, max_nnz):
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

    def _rows(self, T):
        if self.scan > MAX_MIP_SCAN:
            self.too_large = (
                f"MIP too large: building its window rows scans {self.scan} (machine, job) pairs > {MAX_MIP_SCAN}"
            )
            return None
        dline = self.dl.deadline(T)[self.owner]
        by_rel = np.lexsort((dline, self.rel, self.inst.indices)).astype(np.int64)
        by_dl = np.lexsort((self.rel, dline, self.inst.indices)).astype(np.int64)
        args = (self.by_mach, by_rel, by_dl, self.rel, dline, self.size)
        dummy_i = np.zeros(1, dtype=np.int64)
        nrows, nnz = _windows(*args, True, dummy_i, dummy_i, dummy_i, MAX_MIP_ROWS, MAX_MIP_NONZEROS)
        if nrows > MAX_MIP_ROWS or nnz > MAX_MIP_NONZEROS:
            self.too_large = (
                f"MIP too large at T = {T}: more than {MAX_MIP_ROWS} window rows or {MAX_MIP_NONZEROS} nonzeros"
            )
            return None
        rows_ptr = np.zeros(nrows + 1, dtype=np.int64)
        cols = np.zeros(max(nnz, 1), dtype=np.int64)
        rhs = np.zeros(max(nrows, 1), dtype=np.int64)
        _windows(*args, False, rows_ptr, cols, rhs, MAX_MIP_ROWS, MAX_MIP_NONZEROS)
        return rows_ptr, cols[:nnz], rhs[:nrows]

    def probe(self, T, effort: Effort):
        """(True, assignment) | (False, None) | (None, None) when a limit ran out or too large."""
        inst = self.inst
        rows = self._rows(T)
        if rows is None:
            return None, None
        rows_ptr, cols, rhs = rows
        if rhs.size and int(rhs.max()) > MAX_MIP_COEF:
            self.too_large = (
                f"MIP coefficients too large at T = {T}: a window of length {int(rhs.max())} > {MAX_MIP_COEF}"
            )
            return None, None
        n = inst.n
        h = lw.assignment_highs(inst, self.seed)
        inf = highspy.kHighsInf
        if rhs.size:
            h.addRows(
                rhs.size,
                np.full(rhs.size, -inf),
                rhs.astype(np.float64),
                cols.size,
                rows_ptr[:-1].astype(np.int32),
                cols.astype(np.int32),
                self.size[cols].astype(np.float64),
            )
        if effort.exhausted():
            return None, None
        ok, chosen = lw.highs_probe(
            h,
            effort,
            "max-flow-time MIP",
            lambda: _log.warning("max-flow-time MIP: HiGHS solve error at T = %s; retrying without presolve", T),
        )
        if ok is not True:
            return ok, None
        machine = np.empty(n, dtype=np.int64)
        machine[self.owner[chosen]] = inst.indices[chosen]
        return True, machine


def _opt_sized(
    inst: Instance,
    dl: _Deadlines,
    t0: float,
    effort: Effort,
    seed: int,
    counting: bool = True,
    migratory: bool = True,
    method: str = "lazy",
    solver: str = lw.DEFAULT_SOLVER,
    upper: np.ndarray | None = None,
    **lazy_kw,
) -> OptResult:
    """Migratory bound, then the exact search: ``method="lazy"`` (the default: lazy windows,
    :func:`_opt_lazy`, with ``solver`` "cpsat" or "highs" and an optional ``upper`` schedule, a
    machine per job) or ``"mip-full"`` (every window row up front, HiGHS, plain bisection: the
    earlier method, kept for comparison). Works for unit sizes too; tests force it there, and
    turn the bounds off (``counting``, ``migratory``) to exercise the exact search alone."""
    if method == "lazy":
        return _opt_lazy(inst, dl, t0, effort, seed, counting, migratory, solver, upper, **lazy_kw)
    if method != "mip-full":
        raise ValueError(f"argument 'method' must be 'lazy' or 'mip-full', got {method!r}")
    machine, completion = _list_schedule(inst)
    hi = dl.value(completion)
    dl.grid.check(hi)
    lo = min(dl.grid.first_at_least(_lower_bound(inst, dl, counting)), hi)
    lo, note = _lower_and_note(inst, dl, lo, hi, effort, counting, migratory)
    solver = "migratory-maxflow+list-schedule"
    if lo >= hi:
        return OptResult(float(hi), "optimal", float(hi), solver, time.perf_counter() - t0)
    if effort.exhausted():
        return OptResult(
            float(hi), effort.status, float(lo), solver + (f" ({note})" if note else ""), time.perf_counter() - t0
        )
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
    lo, hi, complete = _bisect(feasible, lo, hi, effort, dl.grid, on_feasible=lambda: best["hi"])
    if mip.too_large:
        what = "migratory-maxflow" if migratory and not note.startswith("total") else "counting-bound"
        notes = "; ".join(x for x in (note, mip.too_large) if x)
        return OptResult(float("nan"), "bound", float(lo), f"{what} ({notes})", time.perf_counter() - t0)
    status = "optimal" if complete else effort.status
    hi = min(hi, best["hi"])
    solver = "highs-mip" + (f" ({mip.note})" if mip.note else "")
    return OptResult(float(hi), status, float(hi if complete else lo), solver, time.perf_counter() - t0)


def _lower_and_note(inst, dl, lo, hi, effort, counting, migratory):
    """``lo`` raised by the migratory max-flow bound (when ``migratory`` and the total size fits
    int32) and a note of what bound it is, or why there is none."""
    note = ""
    if not migratory:
        pass
    elif lo < hi and int(inst.size.sum()) < _MAX_FLOW_TOTAL:
        lo, _, note = _migratory_bisect(inst, dl, lo, hi, effort)
    elif lo < hi:
        note = "total size beyond int32: no max-flow bound"
    return lo, note


def _assignment_value(inst: Instance, dl: _Deadlines, machine: np.ndarray, T):
    """The objective of EDF at deadlines for T on a fixed assignment: a real schedule's value
    (for 'flow' EDF is FIFO, optimal per machine, whatever T)."""
    return _edf_value(inst, dl, np.asarray(machine, dtype=np.int64), T)


def _check_upper(inst: Instance, upper) -> np.ndarray:
    machine = np.asarray(upper)
    if machine.shape != (inst.n,) or machine.dtype.kind not in "iu":
        raise ValueError(f"argument 'upper' must be a machine index per job ({inst.n} integers), got {machine!r}")
    machine = machine.astype(np.int64)
    owner = np.repeat(np.arange(inst.n), np.diff(inst.indptr))
    hit = np.zeros(inst.n, dtype=bool)
    hit[owner[inst.indices == machine[owner]]] = True
    if not hit.all():
        j = int(np.flatnonzero(~hit)[0])
        raise ValueError(f"argument 'upper': job {j} is on machine {int(machine[j])}, not one of its eligible machines")
    return machine


def _window_bound(inst: Instance, objective: str, effort: Effort, seed: int) -> tuple[float, str]:
    """The window (subset) lower bound: dropping jobs never raises the optimum, so the optimum of
    the jobs of any release window — :data:`WINDOW_JOBS` consecutive jobs in arrival order, every
    half window — or its proven lower bound is a lower bound on OPT. Each window is solved by the
    exact search with :data:`WINDOW_SHARE` of the work left split over the windows (at most
    :data:`WINDOW_WORK` units each), charged to ``effort``. Returns (best bound, which jobs)."""
    order = inst.arrival_order()
    starts = sorted(set(range(0, inst.n - WINDOW_JOBS + 1, WINDOW_JOBS // 2)) | {inst.n - WINDOW_JOBS})
    per = min(WINDOW_WORK, WINDOW_SHARE * effort.work_left() / len(starts))
    ptr = inst.indptr
    best, where = 0.0, ""
    for s in starts:
        if effort.exhausted() or per < WINDOW_MIN_WORK:
            break
        jobs = np.sort(order[s : s + WINDOW_JOBS])
        sub = Instance(
            m=inst.m,
            release=inst.release[jobs],
            size=inst.size[jobs],
            indptr=np.concatenate([[0], np.cumsum(np.diff(ptr)[jobs])]),
            indices=np.concatenate([inst.indices[ptr[j] : ptr[j + 1]] for j in jobs]),
            w_flow=inst.w_flow[jobs],
            w_reject=None,
        )
        sub_effort = Effort(per, effort.seconds_left())
        method, solver, search = exact_method(sub, objective)
        kw = {} if method == "mip-full" else {"solver": solver, "search": search, "windows": False}
        res = _opt_sized(sub, _Deadlines(sub, objective), time.perf_counter(), sub_effort, seed, method=method, **kw)
        effort.used += sub_effort.used
        if sub_effort.stopped_by == "clock":
            effort.clock_stop()
        if res.lower_bound > best:
            best, where = float(res.lower_bound), f"jobs {s}–{s + WINDOW_JOBS - 1} in arrival order"
    return best, where


def _opt_lazy(
    inst,
    dl,
    t0,
    effort,
    seed,
    counting,
    migratory,
    solver,
    upper,
    check_edf=True,
    search=None,
    windows=True,
    **probe_kw,
):
    """The lazy-window search (module docstring): bracket [migratory bound, best heuristic
    schedule], then probes from the top down, galloping (1, 2, 4, … candidates below the best
    schedule) until a probe fails, then bisection. Every feasible probe's schedule is valued
    and lowers the upper bound; a failed probe is a proof (the relaxation was infeasible)."""
    grid = dl.grid
    machine, completion = _list_schedule(inst)
    hi0 = dl.value(completion)
    grid.check(hi0)
    cands = [
        ("list", machine),
        ("least-work", lw.least_work(inst.arrival_order(), inst.release, inst.size, inst.indptr, inst.indices, inst.m)),
    ]
    if upper is not None:
        cands.append(("upper", _check_upper(inst, upper)))
    hi, best = hi0, machine
    for _, mach in cands:
        v = _assignment_value(inst, dl, mach, hi0)
        if v < hi:
            hi, best = v, mach
    lo = min(grid.first_at_least(_lower_bound(inst, dl, counting)), hi)
    lo, note = _lower_and_note(inst, dl, lo, hi, effort, counting, migratory)
    tag = f"lazy-{solver}"
    search = SEARCH if search is None else search

    def result(status, value, bound, probes=0, extra=""):
        gap = "" if status == "optimal" else f", gap {(value - bound) / value:.2%}" if value > 0 else ""
        notes = "; ".join(x for x in (note, extra) if x)
        text = f"{tag} ({probes} probes{gap}{'; ' + notes if notes else ''})"
        return OptResult(float(value), status, float(bound), text, time.perf_counter() - t0)

    if lo >= hi:
        return result("optimal", hi, hi)
    if effort.exhausted():
        return result(effort.status, hi, lo)
    probe = lw.LazyWindows(
        inst,
        dl,
        seed,
        solver=solver,
        hint=best,
        check_edf=check_edf,
        max_rows=MAX_MIP_ROWS,
        max_nnz=MAX_MIP_NONZEROS,
        **probe_kw,
    )
    state = {"hi": hi, "probes": 0}

    def feasible(T, dl_):
        state["probes"] += 1
        ok, assign = probe.probe(T, dl_)
        if ok and not check_edf:  # planted fault (tests): the relaxation's word taken for T
            state["hi"] = min(state["hi"], T)
        elif ok:
            value = _assignment_value(inst, dl, assign, T)  # the schedule itself, not the solver's word
            state["hi"] = min(state["hi"], value)
            if value > T:  # only a planted fault (check_edf=False) gets here
                probe.note = f"assignment at T = {T} fails the EDF check"
                return None
        return ok

    # local-search descent: each success at the candidate just below the best schedule lowers
    # the upper bound to that schedule's value (cheap; no proofs)
    while grid.count(lo, hi) > 0 and not effort.exhausted():
        assign = probe.repair(grid.below(hi), effort)
        if assign is None:
            break
        hi = min(hi, _assignment_value(inst, dl, assign, grid.below(hi)))
    if windows and grid.count(lo, hi) > 0 and 2 * WINDOW_JOBS <= inst.n <= WINDOW_MAX_JOBS:
        bound, where = _window_bound(inst, dl.objective, effort, seed)
        if bound > lo:
            lo = min(grid.first_at_least(bound), hi)
            note = "; ".join(x for x in (note, f"window bound {bound:.6g}: the optimum of {where}") if x)
    state["hi"] = hi
    complete = True
    last = 0.0
    while search == "bottom-up" and grid.count(lo, hi) > 0:
        now = work_clock()
        if effort.exhausted() or now + last > effort.deadline:
            effort.exhausted() or effort.clock_stop()
            complete = False
            break
        ok = feasible(lo, effort)
        last = max(last, work_clock() - now)
        if ok is None:
            complete = False
            break
        if ok:
            hi = min(lo, state["hi"])
            break
        lo = grid.next_above(lo)
    if search == "gallop":
        lo, hi, complete = _gallop(feasible, lo, hi, effort, grid, on_feasible=lambda: state["hi"])
    if complete and grid.count(lo, hi) > 0:
        lo, hi, complete = _bisect(feasible, lo, hi, effort, grid, on_feasible=lambda: state["hi"])
    hi = min(hi, state["hi"])
    if probe.too_large:
        notes = "; ".join(x for x in (note, probe.too_large) if x)
        return OptResult(float("nan"), "bound", float(lo), f"{tag} ({notes})", time.perf_counter() - t0)
    extra = probe.note
    if complete:
        return result("optimal", hi, hi, state["probes"], extra)
    return result(effort.status, hi, lo, state["probes"], extra)


# ----------------------------------------------------------------------------- entry point
def opt_max_flow(
    inst: Instance,
    objective: str = "flow",
    time_limit: float = DEFAULT_TIME_LIMIT,
    seed: int = 0,
    work_limit: float | None = DEFAULT_WORK_LIMIT,
) -> OptResult:
    """Optimal max_j w_j·F_j of ``inst`` (restricted assignment, preemptive, non-migratory,
    no rejection, speed 1), docs/models/rejection-model.md §8.2–§8.3: ``objective`` is "flow" (w = 1), "weighted" or
    "genwtd" (w = ``w_flow``), or "stretch" (w = 1/p_j); see the module docstring for methods
    and limits.

    ``status="optimal"``: ``value`` is OPT, exactly (the least feasible candidate w_j·f, no
    tolerance). ``"bound"``: the ``work_limit`` (deterministic units, ``None`` for none) ran out,
    or the MIP was too large (then ``value`` is nan); ``"timeout"``: the wall-clock safety net
    ``time_limit`` ran out. Either way ``value`` is the objective of the best schedule found and
    ``lower_bound`` the best proven bound."""
    t0 = time.perf_counter()
    _check_args(inst, objective, time_limit, seed, work_limit)
    effort = Effort(work_limit, time_limit)
    dl = _Deadlines(inst, objective)
    if inst.unit_sizes:
        res = _opt_unit(inst, dl, t0, effort)
    else:
        method, solver, search = exact_method(inst, objective)
        if method == "mip-full":
            res = _opt_sized(inst, dl, t0, effort, seed, method=method)
        else:
            res = _opt_sized(inst, dl, t0, effort, seed, method=method, solver=solver, search=search)
    return with_witness(res, inst, objective)


def exact_method(inst: Instance, objective: str) -> tuple[str, str, str]:
    """(method, solver, search) of the exact search for a sized instance, by measurement
    (benchmarks/bench_compact.py, benchmarks/README.md): below :data:`LAZY_MIN_JOBS` jobs the full
    window MIP; max flow up to :data:`BACKLOG_MAX_JOBS` jobs the backlog model (:mod:`._compact`)
    in the lazy search's place; otherwise lazy windows. The search order is :data:`SEARCH`."""
    if inst.n < LAZY_MIN_JOBS:
        return "mip-full", "", ""
    if objective == "flow" and inst.n <= BACKLOG_MAX_JOBS:
        return "lazy", "backlog", SEARCH
    return "lazy", lw.DEFAULT_SOLVER, SEARCH


def with_witness(res: OptResult, inst: Instance, objective: str) -> OptResult:
    """``res`` with the witness of its lower bound when OPT is not proven: the counting bound's
    (:func:`counting_witness`) when the reported bound is no stronger than it, else the solver's
    proofs — the migratory max-flow relaxation (§8.2), the exact search's infeasible probes or the
    window bound (§8.3, named in ``solver``), the bound being the least candidate T none excludes."""
    if res.status == "optimal" or res.witness:
        return res
    value, text = counting_witness(inst, objective)
    if not res.lower_bound <= value + 1e-9 * max(1.0, abs(value)):
        text = (
            f"stronger than counting: the migratory max-flow relaxation, the exact search's refuted "
            f"candidates or a window's optimum ({res.solver}) exclude every value below {res.lower_bound:.6g}"
        )
    return dataclasses.replace(res, witness=text)
