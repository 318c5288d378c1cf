"""Batched LP assignment (Anand, Bringmann, Friedrich, Garg, Kumar, ICALP 2013 / Algorithmica
2015): baseline B9 of ``docs/models/rejection-model.md`` §7, "B9 in detail" — a
reconstruction [R] (the paper's exact rule is unknown, docs/models/rejection-model.md §10.15), speed 1+ε.

Deferred dispatch: every job is held on arrival (:data:`HOLD`). Time is cut into windows
[b_{k−1}, b_k); at the boundary b_k the jobs released in the window (the batch) are assigned
by an LP (solved exactly as a max flow) and dispatched; each machine runs its batch FIFO (job order) at
speed 1+ε. Nothing is rejected.

* **LP** (per batch, at the current T): x_ij ≥ 0 for i eligible for j and p_j ≤ T only,
  Σ_i x_ij = 1 per job, Σ_j p_j x_ij ≤ ⌊span + T⌋ per machine, span = b_k − b_{k−1}. OPT ≤ T
  makes it feasible (OPT runs the batch inside [b_{k−1}, b_k + T)), so an infeasible LP proves
  T < OPT: T doubles (counted in ``doublings``) and the batch is solved again. Jobs with the
  same size and eligible set are interchangeable, so the LP has one variable per (such type,
  machine), 0 ≤ y ≤ count. In volume units it is a transportation problem, solved exactly by a
  compiled max flow; cycles of its fractional support are then cancelled so that the support is
  a forest, the property of a simplex vertex the rounding needs (:mod:`._transport`; integers
  only, the same on every machine). Earlier versions solved it with HiGHS's simplex method:
  another optimal solution, so other decisions, with the same guarantee.
* **Rounding** (Lenstra–Shmoys–Tardos): integral parts keep their machine; the leftover
  (fractional) jobs are matched to distinct machines among their fractional ones (the fractional
  support is a forest, so such a matching exists), adding at most one job, p_j ≤ T, per machine.
  Should the matching miss a job, the job goes to its largest y (counted in
  ``rounding_fallbacks``; never seen, kept as a guard). Unit jobs: the LP is a b-matching with
  integral capacities, the flow is integral, and nothing is added.
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

``counters``: lp_solves, doublings, fractional_jobs, rounding_fallbacks, cycles_cancelled,
batch_length.

Compiled path (:meth:`AnandBatch.compiled_run`): the same batches, LPs and rounding without the
engine, then the processing in one numba call.
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np
from scipy.sparse import csr_array
from scipy.sparse.csgraph import maximum_bipartite_matching

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms._flow_rules import csr_rows
from schedbench.scheduling.algorithms._transport import transport_flow
from schedbench.scheduling.algorithms.base import HOLD, JobView, OnlineAlgorithm, SlotPlan
from schedbench.scheduling.budget import ceil_over_eps
from schedbench.scheduling.registry import register_algorithm


def batch_length(T: float, eps: float, unit: bool) -> int:
    """L = ⌈T/ε⌉ for unit jobs, ⌈2T/ε⌉ otherwise (at least 1 slot)."""
    return max(1, ceil_over_eps((1.0 if unit else 2.0) * T, eps))


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
    summary = "hold jobs; assign each batch by an LP at its boundary; FIFO per machine"
    bound = "2/ε at speed 1+ε (unit jobs)"
    cites = "anand"
    section = "batched LP"
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
            "cycles_cancelled": 0,
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

    # ------------------------------------------------------------------ compiled path
    def compiled_run(self, inst, order):
        """The whole run without the engine: the windows and batches exactly as
        :meth:`on_arrival`/:meth:`on_slot` form them (at the arrival slots and the boundaries at
        which jobs are held, the slots where the step path's hook changes anything), each batch
        through :meth:`_assign_arrays` (the same LP and rounding), then the FIFO processing at
        speed 1 + ε in one numba call (``fifo_kernel`` with the decisions given)."""
        n = order.size
        release = inst.release[order].astype(np.int64)
        size = inst.size[order].astype(np.int64)
        machine = np.full(n, -1, dtype=np.int64)
        slot = np.full(n, -1, dtype=np.int64)
        lo = pos = 0  # held jobs: positions lo..pos-1
        while pos < n or lo < pos:
            if lo < pos and (pos == n or self.boundary <= release[pos]):
                t = self.boundary  # the wake-up asked for the boundary
            else:
                t = int(release[pos])
                while pos < n and release[pos] == t:  # on_arrival
                    if self.T is None:
                        self.T = float(size[pos])
                    if self.boundary is None:
                        self.boundary = self._span()
                        self.counters["batch_length"] = self.boundary
                    pos += 1
            if t < self.boundary:
                continue
            k = lo + int(np.searchsorted(release[lo:pos], self.boundary, side="left"))
            if k > lo:  # on_slot: the batch of the window that ends here
                b_indptr, b_indices = csr_rows(inst.indptr, inst.indices, order[lo:k])
                machine[lo:k] = self._assign_arrays(size[lo:k], b_indptr, b_indices, self.boundary - self.start)
                slot[lo:k] = self.boundary
                lo = k
            span = self._span()
            self.counters["batch_length"] = max(self.counters["batch_length"], span)
            while self.boundary <= t:
                self.start, self.boundary = self.boundary, self.boundary + span
        run = mc.run(given_rule, inst, order, type(self).speed_for(self.eps), machine, slot)
        run.dispatch_slot = slot
        return run

    # ------------------------------------------------------------------ the batch LP
    def _assign(self, batch: list[JobView], span: int) -> dict[int, int]:
        """{job id: machine} for a batch of held jobs (the step path's call of
        :meth:`_assign_arrays`)."""
        size = np.array([j.size for j in batch], dtype=np.int64)
        indptr = np.zeros(len(batch) + 1, dtype=np.int64)
        indptr[1:] = np.cumsum([j.eligible.size for j in batch])
        indices = np.concatenate([j.eligible for j in batch]).astype(np.int64)
        machine = self._assign_arrays(size, indptr, indices, span)
        return {job.id: int(i) for job, i in zip(batch, machine.tolist())}

    def _assign_arrays(self, size: np.ndarray, indptr: np.ndarray, indices: np.ndarray, span: int) -> np.ndarray:
        """The machine of each job of a batch (sizes and eligible sets as CSR arrays, in
        arrival order): the batch LP at the current T (doubled while infeasible), rounded.
        Jobs of one size and one eligible set (the same machines in the same order) are
        interchangeable: one LP variable per (type, machine) with 0 <= y <= count (Σ_i y =
        count) says the same as the per-job LP and keeps it small when eligible sets repeat;
        types are numbered in the order of their first job."""
        tid, first = _job_types(size, indptr, indices)
        members = np.argsort(tid, kind="stable")  # batch positions grouped by type, in job order
        count = np.bincount(tid, minlength=first.size).astype(np.int64)
        rep_size = size[first]
        rep_indptr, rep_indices = csr_rows(indptr, indices, first)
        if self.doubling:
            self.T = max(self.T, float(rep_size.max()))
        if self.unit and rep_size.max() > 1:
            self.unit = False
        while True:
            z = self._solve(rep_indptr, rep_indices, rep_size, count, span) if rep_size.max() <= self.T else None
            if z is not None:
                return self._round(rep_indptr, rep_indices, rep_size, members, count, z, size.size)
            self.T *= 2.0
            self.counters["doublings"] += 1

    def _solve(
        self, rep_indptr: np.ndarray, rep_indices: np.ndarray, size: np.ndarray, count: np.ndarray, span: int
    ) -> np.ndarray | None:
        """A solution of the batch LP in volume units, z_ti = p_t·y_ti (one integer per (type,
        eligible machine) pair, in type order), whose fractional support is a forest; None if
        the LP is infeasible. By max flow and cycle cancelling (:mod:`._transport`; exact)."""
        cap = math.floor(span + self.T + 1e-9)
        z, cancelled = transport_flow(rep_indptr, rep_indices, size, count, cap, self.m)
        self.counters["lp_solves"] += 1
        self.counters["cycles_cancelled"] += cancelled
        return z

    def _round(
        self,
        rep_indptr: np.ndarray,
        rep_indices: np.ndarray,
        rep_size: np.ndarray,
        members: np.ndarray,
        count: np.ndarray,
        z: np.ndarray,
        n: int,
    ) -> np.ndarray:
        """Machine per batch position (Lenstra–Shmoys–Tardos), from the volumes z_ti = p_t·y_ti.
        Type t puts ⌊y_ti⌋ = z_ti div p_t of its jobs on machine i (exact: y_ti is an integer iff
        p_t divides z_ti), in job order and machine order; its r_t leftover jobs (r_t = Σ
        fractional parts, an integer) go to distinct machines among its fractional ones, at
        most one leftover job per machine over the whole batch (the fractional support is a
        forest, which makes such a matching exist)."""
        machine = np.full(n, -1, dtype=np.int64)
        p = rep_size[np.repeat(np.arange(count.size), np.diff(rep_indptr))]
        whole = z // p
        frac = z % p != 0
        y = z / p
        nt = count.size
        col_type = np.repeat(np.arange(nt), np.diff(rep_indptr))
        # the whole parts, machine by machine within a type, capped at the type's count
        w = whole.astype(np.int64)
        before = np.cumsum(w) - w  # whole parts of the earlier columns (all types)
        type_start = before[rep_indptr[:-1]] if y.size else np.zeros(nt, np.int64)
        take = np.clip(count[col_type] - (before - type_start[col_type]), 0, w)
        slots = np.repeat(rep_indices, take)  # per type: its members' machines, in order
        placed = np.bincount(col_type, weights=take, minlength=nt).astype(np.int64)
        group_start = np.cumsum(count) - count  # members of type t: members[group_start[t]:][:count[t]]
        rank = np.arange(members.size) - np.repeat(group_start, count)
        member_type = np.repeat(np.arange(nt), count)
        is_placed = rank < placed[member_type]
        placed_start = np.cumsum(placed) - placed
        machine[members[is_placed]] = slots[placed_start[member_type[is_placed]] + rank[is_placed]]
        leftover = members[~is_placed]  # batch positions, by type then job order
        if leftover.size:
            self.counters["fractional_jobs"] += int(leftover.size)
            rows = member_type[~is_placed]
            fcols = np.flatnonzero(frac)
            by_type = np.searchsorted(col_type[fcols], np.arange(nt + 1))  # fractional columns of each type
            nf = by_type[rows + 1] - by_type[rows]
            edges_r = np.repeat(np.arange(leftover.size), nf)
            edges_c = rep_indices[fcols[np.repeat(by_type[rows], nf) + _ranges(nf)]]
            graph = csr_array((np.ones(edges_r.size), (edges_r, edges_c)), shape=(leftover.size, self.m))
            match = (
                maximum_bipartite_matching(graph, perm_type="column") if edges_r.size else np.full(leftover.size, -1)
            )
            ok = match >= 0
            machine[leftover[ok]] = match[ok]
            for r in np.flatnonzero(~ok).tolist():  # no forest after all: the type's largest y
                t = rows[r]
                lo, hi = rep_indptr[t], rep_indptr[t + 1]
                machine[leftover[r]] = rep_indices[lo + int(np.argmax(y[lo:hi]))]
                self.counters["rounding_fallbacks"] += 1
        return machine


def _ranges(lengths: np.ndarray) -> np.ndarray:
    """0..l−1 for each l of ``lengths``, concatenated."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    starts = np.cumsum(lengths) - lengths
    return np.arange(total, dtype=np.int64) - np.repeat(starts, lengths)


def _job_types(size: np.ndarray, indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Type of each job (same size and the same eligible machines in the same order), numbered
    by first appearance, and the first job of each type."""
    n = size.size
    degree = np.diff(indptr)
    width = int(degree.max()) if n else 0
    if width <= 16:  # rows (size, degree, machines..., −1 padding), unique rows
        key = np.full((n, width + 2), -1, dtype=np.int64)
        key[:, 0], key[:, 1] = size, degree
        key[np.repeat(np.arange(n), degree), 2 + _ranges(degree)] = indices
        # unique rows by a stable lexicographic sort (np.unique(axis=0) sorts byte strings,
        # ten times slower): a group's first row in sorted order is its first job
        by_row = np.lexsort(key.T[::-1])
        ranked = key[by_row]
        new_group = np.ones(n, dtype=bool)
        new_group[1:] = np.any(ranked[1:] != ranked[:-1], axis=1)
        first = by_row[new_group]
        inverse = np.empty(n, dtype=np.int64)
        inverse[by_row] = np.cumsum(new_group) - 1
    else:  # long eligible sets: a dictionary of (size, machines) keys
        seen: dict[tuple, int] = {}
        inverse = np.empty(n, dtype=np.int64)
        firsts = []
        for k in range(n):
            t = seen.setdefault((int(size[k]), indices[indptr[k] : indptr[k + 1]].tobytes()), len(seen))
            if t == len(firsts):
                firsts.append(k)
            inverse[k] = t
        first = np.asarray(firsts, dtype=np.int64)
        return inverse, first
    inverse = inverse.reshape(-1)
    order = np.argsort(first, kind="stable")
    rank = np.empty(first.size, dtype=np.int64)
    rank[order] = np.arange(first.size)
    return rank[inverse], first[order]


@compiled
def given_rule(machines, machine, slot):
    """The decisions made already (job ``pos`` to ``machine[pos]`` in slot ``slot[pos]``,
    non-decreasing): only the processing runs, FIFO."""
    for pos in range(machines.n):
        mc.advance(machines, machine[pos], float(slot[pos]))
        mc.dispatch(machines, pos, machine[pos])
