"""Compact exact models of one probe "is T feasible?" for the sized max-flow-time optimum
(docs/models/rejection-model.md §8.2): the whole window family of the lazy model
(:mod:`._lazy_windows`) in a number of rows linear in the input, solved once by CP-SAT. Used by
:mod:`schedbench.scheduling.offline.maxflow` as the probe's 0–1 solve (``solver="backlog"`` or
``"transport"``; the tabu repair and the search around it are the lazy search's).

Variables: a binary y_k per CSR entry k = (job j, machine i), Σ_{k of j} y_k = 1.

* **Backlog** (max flow, every window d_j − r_j equal to one L). With a common window EDF is
  FIFO, so on machine i with release points t_1 < t_2 < …, the work W_k still to do just after
  the arrivals at t_k (those included) satisfies W_k = max(0, W_{k−1} − (t_k − t_{k−1})) + A_k,
  A_k = Σ_{j on i, r_j = t_k} p_j y_k, and the last job released at t_k completes at t_k + W_k.
  So T is feasible iff W_k ≤ L everywhere. The model keeps W_k ∈ [0, L] as an integer with the two
  lower bounds W_k ≥ A_k and W_k ≥ W_{k−1} − (t_k − t_{k−1}) + A_k: any feasible W lies above the
  true backlog, so a solution exists iff the true backlog fits. Unrolled, the rows are exactly
  the windows Σ_{a ≤ r_j ≤ t_k} p_j y ≤ t_k − a + L of the lazy model — all of them, in
  (points) rows instead of (points)² — so the LP relaxation is the full window model's; CP-SAT
  propagates along the chain.
* **Transport** (any deadlines: weighted, GenWtd, stretch). Per machine the elementary intervals
  between consecutive points of {r_j, d_j}; an integer f ≥ 0 per (entry, interval inside the
  job's window) with Σ f = p_j·y_k per entry and Σ_j f ≤ |interval| per interval, and
  f ≤ min(|I|, p_j)·y_k. One preemptive machine meets every deadline of a job set iff such
  amounts exist (any amounts fitting an interval can be run in it, one job at a time), so this
  is exact; its LP relaxation again implies every window (Hall's condition on intervals).
"""

from __future__ import annotations

import numpy as np

from schedbench.scheduling.offline.result import solver_seed

__all__ = ["COMPACT", "Backlog", "Transport", "common_window"]

#: The compact models by the ``solver`` name the lazy probe accepts.
COMPACT = ("backlog", "transport")
#: Extra CP-SAT parameters of every probe's solve, lazy or compact (measured: see maxflow's module
#: docstring).
CPSAT_PARAMS: dict = {}


def common_window(inst, deadline) -> int | None:
    """L when every job has d_j − r_j = L (the backlog model's case), else None."""
    win = np.asarray(deadline, dtype=np.int64) - inst.release
    return int(win[0]) if win.size and np.all(win == win[0]) else None


class _Model:
    """The assignment part shared by both models and the CP-SAT solve (one worker, fixed seed,
    an assignment as hint), charged to the caller's :class:`~schedbench.hall.effort.Effort`."""

    what = "max-flow-time compact probe"

    def __init__(self, inst, owner, seed):
        from ortools.sat.python import cp_model

        self.cp = cp_model
        self.inst, self.owner, self.seed = inst, owner, seed
        self.model = cp_model.CpModel()
        self.y = [self.model.new_bool_var(f"y{k}") for k in range(owner.size)]
        ip = inst.indptr
        for j in range(inst.n):
            self.model.add_exactly_one(self.y[ip[j] : ip[j + 1]])
        self.rel_e = inst.release[owner].astype(np.int64)
        self.size_e = inst.size[owner].astype(np.int64)

    def machine_entries(self, i):
        """Machine i's CSR entries sorted by release (ties by entry)."""
        ks = np.flatnonzero(self.inst.indices == i)
        return ks[np.argsort(self.rel_e[ks], kind="stable")]

    def solve(self, hint_entries, effort):
        """True (and the chosen entries), False (T infeasible: a proof), or None (a limit ran out)."""
        if hint_entries is not None:
            self.model.clear_hints()  # a lazy model is solved again with each round's hint
            chosen = np.zeros(len(self.y), dtype=bool)
            chosen[hint_entries] = True
            for v, c in zip(self.y, chosen.tolist()):
                self.model.add_hint(v, c)
        solver = self.cp.CpSolver()
        prm = solver.parameters
        prm.num_workers = 1
        prm.random_seed = solver_seed(self.seed)
        for key, val in CPSAT_PARAMS.items():
            setattr(prm, key, val)
        effort.limit_cpsat(prm)
        status = solver.solve(self.model)
        effort.charge_cpsat(solver, unknown=status == self.cp.UNKNOWN)
        if status in (self.cp.OPTIMAL, self.cp.FEASIBLE):
            vals = np.fromiter((solver.boolean_value(v) for v in self.y), dtype=bool, count=len(self.y))
            return True, np.flatnonzero(vals)
        if status == self.cp.INFEASIBLE:
            return False, None
        if status == self.cp.UNKNOWN:
            return None, None
        raise RuntimeError(f"{self.what}: unexpected CP-SAT status {solver.status_name(status)}")


class Backlog(_Model):
    """The backlog model (module docstring) for deadlines d_j = r_j + L."""

    def __init__(self, inst, owner, seed, L: int):
        super().__init__(inst, owner, seed)
        wsum = self.cp.LinearExpr.weighted_sum
        md, y = self.model, self.y
        for i in range(inst.m):
            ks = self.machine_entries(i)
            if ks.size == 0:
                continue
            pts, first = np.unique(self.rel_e[ks], return_index=True)
            ends = np.append(first[1:], ks.size)
            prev, t_prev = None, 0
            for t, s, e in zip(pts.tolist(), first.tolist(), ends.tolist()):
                grp = ks[s:e].tolist()
                arrivals = wsum([y[k] for k in grp], self.size_e[ks[s:e]].tolist())
                w = md.new_int_var(0, L, f"W{i}_{t}")
                md.add(w >= arrivals)
                if prev is not None:
                    md.add(w >= prev - (t - t_prev) + arrivals)
                prev, t_prev = w, t


class Transport(_Model):
    """The interval transportation model (module docstring) for any integer deadlines."""

    def __init__(self, inst, owner, seed, deadline: np.ndarray):
        super().__init__(inst, owner, seed)
        cp = self.cp
        md, y = self.model, self.y
        dl_e = np.asarray(deadline, dtype=np.int64)[owner]
        for i in range(inst.m):
            ks = self.machine_entries(i)
            if ks.size == 0:
                continue
            pts = np.unique(np.concatenate([self.rel_e[ks], dl_e[ks]]))
            length = np.diff(pts).tolist()
            lo = np.searchsorted(pts, self.rel_e[ks]).tolist()
            hi = np.searchsorted(pts, dl_e[ks]).tolist()
            per_interval: list[list] = [[] for _ in length]
            for k, a, b in zip(ks.tolist(), lo, hi):
                p = int(self.size_e[k])
                fs = []
                for q in range(a, b):
                    cap = min(length[q], p)
                    f = md.new_int_var(0, cap, f"f{k}_{q}")
                    if cap < p:  # the job may use at most |I| of the interval, and only if it is here
                        md.add(f <= cap * y[k])
                    fs.append(f)
                    per_interval[q].append(f)
                md.add(cp.LinearExpr.sum(fs) == p * y[k])
            for q, fs in enumerate(per_interval):
                if len(fs) > 1:
                    md.add(cp.LinearExpr.sum(fs) <= length[q])
