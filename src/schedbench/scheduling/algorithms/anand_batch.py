"""Batched LP assignment (Anand, Bringmann, Friedrich, Garg, Kumar, ICALP 2013 / Algorithmica
2015): baseline B9 of ``docs/models/rejection-model.md`` §7, "B9 in detail" — a
reconstruction [R] (the paper's exact rule is unknown, docs/models/rejection-model.md §10.15), speed 1+ε.

Deferred dispatch: every job is held on arrival (:data:`HOLD`). Time is cut into windows
[b_{k−1}, b_k); at the boundary b_k the jobs released in the window (the batch) are assigned
by an LP solved with HiGHS and dispatched; each machine runs its batch FIFO (job order) at
speed 1+ε. Nothing is rejected.

* **LP** (per batch, at the current T): x_ij ≥ 0 for i eligible for j and p_j ≤ T only,
  Σ_i x_ij = 1 per job, Σ_j p_j x_ij ≤ ⌊span + T⌋ per machine, span = b_k − b_{k−1}. OPT ≤ T
  makes it feasible (OPT runs the batch inside [b_{k−1}, b_k + T)), so an infeasible LP proves
  T < OPT: T doubles (counted in ``doublings``) and the batch is solved again. Jobs with the
  same size and eligible set are interchangeable, so the LP has one variable per (such type,
  machine), 0 ≤ y ≤ count; it is solved by the simplex method without presolve (a vertex).
  Its cost grows with Σ_j |S_j| per batch: measured ~2-3 s for n = 10^5, m = 100, d = 2 or
  ⌈log₂ m⌉, ~10 s with d = m/2 (distinct eligible sets), ~1.4 s with d = m (one type per size).
* **Rounding** of the simplex vertex (Lenstra–Shmoys–Tardos): integral parts keep their machine;
  the leftover (fractional) jobs are matched to distinct machines among their fractional ones (a vertex's
  fractional support is a pseudoforest, so such a matching exists), adding at most one job,
  p_j ≤ T, per machine. Should the matching miss a job (a non-vertex answer), the job goes to
  its largest x (counted in ``rounding_fallbacks``). Unit jobs: the LP is a b-matching with
  integral capacities, the vertex is integral, and nothing is added.
* **Batch length** L = ⌈2T/ε⌉, or ⌈T/ε⌉ while every job seen so far has size 1 (no rounding
  excess); the window after a boundary has the length for the T and sizes known there. Windows
  never shrink, and a batch of volume ≤ span + 2T (≤ span + T for unit jobs) finishes within
  the next window at speed 1+ε, so the machines are empty at every boundary and every job's
  flow time is ≤ span_k + span_{k+1} ≤ 2L (L the last window length, reported as
  ``batch_length``): ≤ 2⌈2T*/ε⌉ with T = T*, which is the spec's 4T*/ε (2T*/ε for unit jobs)
  up to the rounding of L to whole slots.
* ``oracle="opt"`` (default): T = T* (the given optimum; if it is too small the LP says so and
  T doubles). ``oracle="doubling"``: T starts at the largest size seen, is raised to the largest
  size seen at each boundary, and doubles when an LP is infeasible; T ≤ 2·OPT throughout, so
  the flow is ≤ 2⌈4·OPT/ε⌉. :meth:`ratio_bound` gives these general-size bounds (it does not
  see the instance, so not the unit-job 2⌈T*/ε⌉).
* **ε = 0** is refused (ParameterError naming 'eps'): the batch length 2T/ε is undefined, and
  at speed 1 the rule has no guarantee (Ω(m), docs/models/rejection-model.md §7 B9). :meth:`eps_values` leaves ε = 0 out
  of an experiment's sweep.

``counters``: lp_solves, doublings, fractional_jobs, rounding_fallbacks, batch_length.
"""

from __future__ import annotations

import math
from typing import Iterable

import highspy
import numpy as np
from scipy.sparse import csr_array
from scipy.sparse.csgraph import maximum_bipartite_matching

from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling.algorithms.base import HOLD, JobView, OnlineAlgorithm, SlotPlan
from schedbench.scheduling.registry import register_algorithm
from schedbench.hall.solvers import quiet_highs, run_checked

_INTEGRAL = 1e-6  # x within this of 0 or 1 counts as integral


def batch_length(T: float, eps: float, unit: bool) -> int:
    """L = ⌈T/ε⌉ for unit jobs, ⌈2T/ε⌉ otherwise (at least 1 slot)."""
    return max(1, math.ceil((1.0 if unit else 2.0) * T / eps - 1e-9))


@register_algorithm
class AnandBatch(OnlineAlgorithm):
    """B9: hold jobs, assign each batch by an LP at the batch boundary, FIFO at speed 1+ε."""

    name = "anand-batch"
    problem = "maxflow"
    model = "speed"
    rule_label = "R"
    deferred_dispatch = True
    max_hold_slots = 2**62  # every hold ends at the next boundary, which the algorithm asks to be woken at
    parameters = {
        "oracle": Param(
            "opt",
            ("opt", "doubling"),
            "opt: T = T* (doubled if an LP is infeasible); doubling: T from the largest size, "
            "doubled on an infeasible LP",
        ),
    }
    reference = (
        "Anand–Bringmann–Friedrich–Garg–Kumar ICALP 2013 (2/ε at speed 1+ε); "
        "docs/models/rejection-model.md §7 B9 in detail (batched LP, reconstructed)"
    )

    @classmethod
    def check_eps(cls, eps):
        eps = super().check_eps(eps)
        if eps == 0.0:
            raise ParameterError(
                f"algorithm {cls.name!r}: eps (extra speed) must be > 0: the batch length "
                "2T/eps is undefined at eps = 0"
            )
        return eps

    @classmethod
    def eps_values(cls, eps_list: Iterable[float]) -> list[float | None]:
        return [float(e) for e in eps_list if float(e) != 0.0]

    @classmethod
    def ratio_bound(cls, eps, params, opt=None):
        """Flow ≤ 2⌈2T/ε⌉ with T = T* (oracle) or T ≤ 2·OPT (doubling); divided by OPT when
        given, else its value at OPT = 1 (the largest over OPT ≥ 1). The unit-job bound
        2⌈T*/ε⌉ is tighter but needs the instance, which this method does not see."""
        if not eps:
            return None
        if opt is None or not opt > 0:
            opt = 1.0
        T = float(opt) if params["oracle"] == "opt" else 2.0 * float(opt)
        return 2.0 * batch_length(T, eps, unit=False) / float(opt)

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.doubling = self.params["oracle"] == "doubling"
        self.T = None if self.doubling else float(self.opt)
        self.unit = True  # every job seen so far has size 1
        self.pending: list[JobView] = []  # held jobs, in arrival order
        self.start = 0  # current window [start, boundary)
        self.boundary: int | None = None
        self.asked = -1  # the last boundary a wake-up was asked for
        self.counters = {
            "lp_solves": 0,
            "doublings": 0,
            "fractional_jobs": 0,
            "rounding_fallbacks": 0,
            "batch_length": 0,
        }

    def _span(self) -> int:
        return batch_length(self.T, self.eps, self.unit)

    def on_arrival(self, job: JobView, view) -> int:
        if self.T is None:  # doubling: the first size seen
            self.T = float(job.size)
        if self.boundary is None:
            self.boundary = self._span()
            self.counters["batch_length"] = self.boundary
        self.pending.append(job)
        return HOLD

    def on_slot(self, view) -> SlotPlan | None:
        t = view.time
        if self.boundary is None:
            return None
        plan = None
        if t >= self.boundary:
            k = 0
            while k < len(self.pending) and self.pending[k].release < self.boundary:
                k += 1
            if k:
                assert t == self.boundary, "a batch boundary was missed"
                batch, self.pending = self.pending[:k], self.pending[k:]
                plan = SlotPlan(dispatch=self._assign(batch, self.boundary - self.start))
            # the next window (and any empty ones up to now) at the current T and sizes
            span = self._span()
            self.counters["batch_length"] = max(self.counters["batch_length"], span)
            while self.boundary <= t:
                self.start, self.boundary = self.boundary, self.boundary + span
        if self.pending and self.asked != self.boundary:
            plan = plan or SlotPlan()
            plan.wake_at = self.boundary
            self.asked = self.boundary
        return plan

    # ------------------------------------------------------------------ the batch LP
    def _assign(self, batch: list[JobView], span: int) -> dict[int, int]:
        # Jobs of one size and one eligible set are interchangeable: one LP variable per
        # (type, machine) with 0 <= y <= count (Σ_i y = count) says the same as the per-job LP
        # and keeps it small when eligible sets repeat (e.g. every machine eligible).
        types: dict[tuple, int] = {}
        members: list[list[int]] = []
        for a, job in enumerate(batch):
            t = types.setdefault((job.size, job.eligible.tobytes()), len(types))
            if t == len(members):
                members.append([])
            members[t].append(a)
        rep = [batch[ms[0]] for ms in members]
        size = np.array([j.size for j in rep], dtype=np.int64)
        count = np.array([len(ms) for ms in members], dtype=np.int64)
        if self.doubling:
            self.T = max(self.T, float(size.max()))
        if self.unit and size.max() > 1:
            self.unit = False
        while True:
            y = self._solve(rep, size, count, span) if size.max() <= self.T else None
            if y is not None:
                return self._round(batch, rep, members, y)
            self.T *= 2.0
            self.counters["doublings"] += 1

    def _solve(self, rep: list[JobView], size: np.ndarray, count: np.ndarray, span: int) -> np.ndarray | None:
        """The LP's vertex (one value per (type, eligible machine) pair, in type order), or
        None if it is infeasible."""
        nt, m = len(rep), self.m
        degree = np.array([j.eligible.size for j in rep], dtype=np.int64)
        machines = np.concatenate([j.eligible for j in rep]).astype(np.int32)
        owner = np.repeat(np.arange(nt, dtype=np.int32), degree)
        ncol = machines.size
        cap = math.floor(span + self.T + 1e-9)
        h = quiet_highs()
        h.setOptionValue("solver", "simplex")
        h.setOptionValue("presolve", "off")  # faster here (measured 4x), and the answer is the vertex itself
        inf = highspy.kHighsInf
        # rows 0..nt-1: Σ_i y_ti = count_t; rows nt..nt+m-1: Σ_t p_t y_ti <= cap
        demand = count.astype(np.float64)
        h.addRows(
            nt + m,
            np.r_[demand, np.full(m, -inf)],
            np.r_[demand, np.full(m, float(cap))],
            0,
            np.zeros(nt + m, dtype=np.int32),
            np.zeros(0, dtype=np.int32),
            np.zeros(0),
        )
        index = np.empty(2 * ncol, dtype=np.int32)
        index[0::2], index[1::2] = owner, nt + machines
        value = np.empty(2 * ncol)
        value[0::2], value[1::2] = 1.0, size[owner]
        h.addCols(
            ncol,
            np.zeros(ncol),
            np.zeros(ncol),
            demand[owner],
            2 * ncol,
            np.arange(0, 2 * ncol, 2, dtype=np.int32),
            index,
            value,
        )
        status = run_checked(h, f"{self.name}: batch LP")
        self.counters["lp_solves"] += 1
        if status == highspy.HighsModelStatus.kInfeasible:
            return None
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"{self.name}: batch LP ended with status {h.modelStatusToString(status)}")
        return np.asarray(h.getSolution().col_value, dtype=np.float64)

    def _round(
        self, batch: list[JobView], rep: list[JobView], members: list[list[int]], y: np.ndarray
    ) -> dict[int, int]:
        """Machine per job (Lenstra–Shmoys–Tardos). Type t puts ⌊y_ti⌉ of its jobs on machine i
        (y within 1e-6 of an integer counts as that integer), in job order; its r_t leftover
        jobs (r_t = Σ fractional parts, an integer) go to distinct machines among its
        fractional ones, at most one leftover job per machine over the whole batch (a
        vertex's fractional support is a pseudoforest, which makes such a matching exist)."""
        machine = np.full(len(batch), -1, dtype=np.int64)
        rows: list[int] = []  # one matching row per leftover job (its type)
        edges_r: list[int] = []
        edges_c: list[int] = []
        leftover: list[int] = []  # batch positions of the leftover jobs, one per row
        col = 0
        for t, job in enumerate(rep):
            mach = job.eligible.tolist()
            vals = y[col : col + len(mach)]
            col += len(mach)
            whole = np.floor(vals + _INTEGRAL)
            frac = [i for i, v, w in zip(mach, vals.tolist(), whole.tolist()) if v - w > _INTEGRAL]
            ms = members[t]
            k = 0
            for i, w in zip(mach, whole.tolist()):
                take = min(int(w), len(ms) - k)
                machine[ms[k : k + take]] = i
                k += take
            for a in ms[k:]:
                r = len(leftover)
                leftover.append(a)
                rows.append(t)
                edges_r.extend([r] * len(frac))
                edges_c.extend(frac)
        if leftover:
            self.counters["fractional_jobs"] += len(leftover)
            graph = csr_array(
                (np.ones(len(edges_r)), (np.array(edges_r, dtype=np.int64), np.array(edges_c, dtype=np.int64))),
                shape=(len(leftover), self.m),
            )
            match = (
                maximum_bipartite_matching(graph, perm_type="column") if len(edges_r) else np.full(len(leftover), -1)
            )
            starts = np.r_[0, np.cumsum([j.eligible.size for j in rep])]
            for r, a in enumerate(leftover):
                if match[r] >= 0:
                    machine[a] = match[r]
                else:  # not a vertex after all: the machine with the type's largest y
                    t = rows[r]
                    machine[a] = rep[t].eligible[int(np.argmax(y[starts[t] : starts[t + 1]]))]
                    self.counters["rounding_fallbacks"] += 1
        return {job.id: int(i) for job, i in zip(batch, machine.tolist())}
