"""Dispatch rules and T(t) stand-ins shared by the flow-time algorithms (rejection-model.md §3, §7 B3/B4/B8/B12).

Queue length counts the job in service (docs/models/rejection-model.md §10.5); remaining work is what is left on the
machine at the start of this slot's processing. Ties go to the lowest machine index (docs/models/rejection-model.md §7).
"""

from __future__ import annotations

import math

import numpy as np

from schedbench.scheduling.algorithms._oracles import pow2_at_least
from schedbench.scheduling.model import Instance

__all__ = ["shortest_queue", "least_work", "two_shortest_queues", "PrefixFlowOpt"]


def shortest_queue(view, eligible) -> int:
    """argmin over ``eligible`` of (queue length, index)."""
    best, best_len = -1, math.inf
    for i in eligible.tolist():
        q = len(view.queue(i))
        if q < best_len:
            best, best_len = i, q
    return best


def least_work(view, eligible) -> int:
    """argmin over ``eligible`` of (remaining work, index)."""
    best, best_work = -1, math.inf
    for i in eligible.tolist():
        w = view.remaining_work(i)
        if w < best_work - 1e-9:
            best, best_work = i, w
    return best


def two_shortest_queues(view, eligible) -> list[int]:
    """The (at most) two machines of ``eligible`` with the shortest queues, by (length, index)."""
    return sorted(eligible.tolist(), key=lambda i: (len(view.queue(i)), i))[:2]


class PrefixFlowOpt:
    """T(t) = OPT of the prefix seen so far for MaxFlowTime (docs/models/rejection-model.md §3 "Removing T*" [R]),
    computed exactly by the offline solver (:func:`schedbench.scheduling.offline.opt_max_flow`)
    — but only when asked, i.e. when a cap is reached: OPT(prefix) never decreases, so a cap
    computed from an older prefix is never above the current one, and recomputing at the moment
    a job would be rejected gives exactly the decision T(t) = OPT(prefix_t) would. ``pow2``
    rounds T up to a power of two (fewer recomputations, caps up to twice as large)."""

    def __init__(self, m: int, pow2: bool = False, time_limit: float = 60.0) -> None:
        self.m, self.pow2, self.time_limit = m, pow2, time_limit
        self.T = 1.0
        self.solves = 0

    def refresh(self, view) -> float:
        """Recompute T from the prefix (every job arrived so far); return it."""
        jobs = [view.job(j) for j in range(view.n_arrived)]
        counts = np.array([len(j.eligible) for j in jobs], dtype=np.int64)
        indptr = np.zeros(len(jobs) + 1, dtype=np.int64)
        indptr[1:] = np.cumsum(counts)
        return self.refresh_with(
            np.array([j.release for j in jobs], dtype=np.int64),
            np.array([j.size for j in jobs], dtype=np.int64),
            indptr,
            np.concatenate([j.eligible for j in jobs]).astype(np.int64),
        )

    def refresh_with(self, release, size, indptr, indices) -> float:
        """Recompute T from the prefix given as arrays (jobs in arrival order); return it."""
        from schedbench.scheduling.offline import opt_max_flow  # the solver, not the algorithm, owns OPT

        prefix = Instance(self.m, release, size, indptr, indices, None, None)
        res = opt_max_flow(prefix, time_limit=self.time_limit)
        self.solves += 1
        value = res.value if res.status == "optimal" else math.ceil(res.lower_bound)
        if self.pow2:
            value = pow2_at_least(max(1.0, value))
        self.T = max(self.T, float(value))
        return self.T


def csr_rows(indptr: np.ndarray, indices: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The eligibility CSR of the jobs ``rows`` (in that order): (indptr, indices) of the
    sub-instance, machines in each job's own order (a batch of held jobs, a prefix in arrival
    order, the representatives of job types)."""
    rows = np.asarray(rows, dtype=np.int64)
    starts = indptr[rows]
    degree = (indptr[rows + 1] - starts).astype(np.int64)
    sub = np.zeros(rows.size + 1, dtype=np.int64)
    sub[1:] = np.cumsum(degree)
    offsets = np.arange(sub[-1], dtype=np.int64) - np.repeat(sub[:-1], degree)
    return sub, indices[np.repeat(starts, degree) + offsets].astype(np.int64)
