"""Global (migratory) EDF with guessed T: baseline B11 of ``docs/models/rejection-model.md`` §7,
"reference point, not a legal algorithm in the model".

One central queue; at every instant the active jobs, in EDF order of d_j = r_j + T/w_j (w_j the
problem's flow weight; ties by arrival order), each take the lowest-index free machine of their
eligible set (greedy list assignment), and every running job is processed at rate s = 1 + ε.
The assignment is recomputed at every event — a release (integer times) or a completion
(fractional at s ∉ ℕ) — so a job may change machine: the schedule is preemptive **and
migratory** (never on two machines at once). It is outside the model of docs/models/rejection-model.md §1.1, hence
``migratory = True``: it has no step path (the non-migratory engine cannot run it) and
schedules a whole instance with :meth:`GlobalEdf.schedule_all`, one numba kernel. Nothing is
rejected; ε is the extra speed (ε = 0 is the speed-1 row).

``oracle``: ``"none"`` (default) T = 1, ``"opt"`` T = T* (the offline optimum). For MaxFlowTime
every w_j = 1, so d_j = r_j + T orders jobs by release whatever T is: the parameter changes
nothing there and is kept for the weighted problems' reading of B11.

Outcome conventions: one step per arrival at its release slot; the job enters the central
queue there (``dispatch_step`` = arrival step); ``machine`` is the first machine it ran on (every
job runs: nothing is rejected); the trace has one row per maximal interval on one machine
(rows merged while a job stays on the same machine); completions are exact instants.
"""

from __future__ import annotations

import math

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling.algorithms.base import WEIGHTED_FLOW_PROBLEMS, OnlineAlgorithm
from schedbench.scheduling.model import WORK_TOL, Instance, Outcome
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.registry import register_algorithm

__all__ = ["GlobalEdf", "global_edf_kernel"]

# relative (to the time) slack for "finishes at the next release": 1e-12·t is far above float
# rounding (≈ 1e-16·t per event) but small enough that snapping a completion onto a release adds
# no visible work rate (a 1e-9·t window did: 1.6e-6 extra units at t ≈ 1277, and time drifted)
_TIME_TOL = 1e-12


@compiled
def global_edf_kernel(release, size, indptr, indices, order, rank, m, s):
    """Event-driven global EDF with greedy list assignment at speed ``s``.

    ``order``: jobs in arrival order (release, ties by index); ``rank[j]``: j's EDF priority
    (0 = earliest deadline; distinct). Returns (first machine, completion, trace machine, job,
    start, end, work) with the trace rows in the order they were opened."""
    n = order.shape[0]
    rem = np.empty(n)
    for j in range(n):
        rem[j] = float(size[j])
    completion = np.full(n, np.nan)
    first = np.full(n, -1, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    last_row = np.full(n, -1, dtype=np.int64)
    cap = 2 * n + 16
    tm = np.empty(cap, dtype=np.int64)
    tj = np.empty(cap, dtype=np.int64)
    ts = np.empty(cap)
    te = np.empty(cap)
    tw = np.empty(cap)
    rows = 0
    # active jobs, sorted by rank, live in act[head:tail]
    act = np.empty(n, dtype=np.int64)
    tmp = np.empty(n, dtype=np.int64)
    fresh = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    taken = np.full(m, -1, dtype=np.int64)  # event stamp at which the machine was last taken
    run_j = np.empty(m, dtype=np.int64)
    run_i = np.empty(m, dtype=np.int64)
    ptr = 0
    t = 0.0
    event = 0
    while ptr < n or tail > head:
        if tail == head and float(release[order[ptr]]) > t:
            t = float(release[order[ptr]])  # idle until the next release
        # -- admit the releases of this instant (t never passes a release: it is an event)
        start_new = ptr
        while ptr < n and float(release[order[ptr]]) <= t:
            ptr += 1
        k_new = ptr - start_new
        if k_new > 0:
            new = fresh[:k_new]
            for q in range(k_new):  # insertion sort by rank (already sorted for maxflow)
                j = order[start_new + q]
                p = q
                while p > 0 and rank[new[p - 1]] > rank[j]:
                    new[p] = new[p - 1]
                    p -= 1
                new[p] = j
            if tail == head or rank[new[0]] > rank[act[tail - 1]]:
                for q in range(k_new):
                    act[tail] = new[q]
                    tail += 1
            else:  # merge (weighted deadlines: a new job may precede a queued one)
                a, b, w = head, 0, 0
                while a < tail or b < k_new:
                    if b >= k_new or (a < tail and rank[act[a]] < rank[new[b]]):
                        tmp[w] = act[a]
                        a += 1
                    else:
                        tmp[w] = new[b]
                        b += 1
                    w += 1
                for q in range(w):
                    act[head + q] = tmp[q]
                tail = head + w
        # -- greedy list assignment in EDF order
        event += 1
        free = m
        nr = 0
        scanned = head
        for k in range(head, tail):
            if free == 0:
                break
            scanned = k + 1
            j = act[k]
            best = -1
            for q in range(indptr[j], indptr[j + 1]):
                i = indices[q]
                if taken[i] != event and (best < 0 or i < best):
                    best = i
            if best >= 0:
                taken[best] = event
                free -= 1
                run_j[nr] = j
                run_i[nr] = best
                nr += 1
        # -- next event: the next release or the first completion
        t_rel = float(release[order[ptr]]) if ptr < n else np.inf
        t_fin = np.inf
        for r in range(nr):
            f = t + rem[run_j[r]] / s
            if f < t_fin:
                t_fin = f
        tol = _TIME_TOL * max(1.0, t)
        t_next = t_rel if t_fin >= t_rel - tol else t_fin
        tol = _TIME_TOL * max(1.0, t_next)
        span = t_next - t
        for r in range(nr):
            j, i = run_j[r], run_i[r]
            if t + rem[j] / s <= t_next + tol:
                w = rem[j]
            else:
                w = span * s
            rem[j] -= w
            if rem[j] <= WORK_TOL * max(1.0, float(size[j])):  # a float residue: the job is done
                w += rem[j]
                rem[j] = 0.0
                done[j] = True
                completion[j] = t_next
            if first[j] < 0:
                first[j] = i
            row = last_row[j]
            if row >= 0 and tm[row] == i and te[row] == t:
                te[row] = t_next
                tw[row] += w
            else:
                if rows == cap:
                    cap *= 2
                    tm2 = np.empty(cap, dtype=np.int64)
                    tj2 = np.empty(cap, dtype=np.int64)
                    ts2 = np.empty(cap)
                    te2 = np.empty(cap)
                    tw2 = np.empty(cap)
                    tm2[:rows] = tm[:rows]
                    tj2[:rows] = tj[:rows]
                    ts2[:rows] = ts[:rows]
                    te2[:rows] = te[:rows]
                    tw2[:rows] = tw[:rows]
                    tm, tj, ts, te, tw = tm2, tj2, ts2, te2, tw2
                tm[rows] = i
                tj[rows] = j
                ts[rows] = t
                te[rows] = t_next
                tw[rows] = w
                last_row[j] = rows
                rows += 1
        # -- drop the completed jobs (all among the scanned prefix), keeping rank order
        w = scanned
        for k in range(scanned - 1, head - 1, -1):
            j = act[k]
            if not done[j]:
                w -= 1
                act[w] = j
        head = w
        t = t_next
    return (first, completion, tm[:rows].copy(), tj[:rows].copy(), ts[:rows].copy(), te[:rows].copy(), tw[:rows].copy())


@register_algorithm
class GlobalEdf(OnlineAlgorithm):
    name = "global-edf"
    problem = "maxflow"
    problems = WEIGHTED_FLOW_PROBLEMS  # deadlines r + T/w with the problem's flow weight
    model = "speed"
    rule_label = "R"
    migratory = True
    parameters = {
        "oracle": Param(
            "none", ("none", "opt"), "none: T = 1; opt: T = T* (for maxflow the EDF order does not depend on T)"
        ),
    }
    summary = "central EDF queue; each job takes the lowest free eligible machine (migratory)"
    bound = "none (reference point, outside the model)"
    cites = ""
    section = ""
    reference = "docs/models/rejection-model.md §7 B11 (global migratory EDF, d_j = r_j + T/w_j; outside the model)"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.T = float(self.opt) if self.params["oracle"] == "opt" else 1.0

    def on_arrival(self, job, view) -> int:
        raise ParameterError(
            f"algorithm {self.name!r} is migratory: it has no step path "
            "(it cannot play an adaptive adversary); use schedule_all"
        )

    def deadlines(self, inst: Instance) -> np.ndarray:
        """d_j = r_j + T/w_j with the problem's flow weight."""
        w = get_problem(self.problem).flow_weights(inst)
        return inst.release.astype(np.float64) + self.T / w

    def schedule_all(self, inst: Instance) -> Outcome:
        """The whole schedule of ``inst`` (arrival order: release, ties by index)."""
        if not isinstance(inst, Instance):
            raise ParameterError(f"algorithm {self.name!r}: schedule_all takes an Instance, got {type(inst).__name__}")
        if inst.m != self.m:
            raise ParameterError(
                f"algorithm {self.name!r} was built for m = {self.m} machines, the instance has {inst.m}"
            )
        speed = type(self).speed_for(self.eps)
        if not (math.isfinite(speed) and speed >= 1.0):
            raise ParameterError(f"algorithm {self.name!r}: speed must be >= 1, got {speed!r}")
        n = inst.n
        order = inst.arrival_order().astype(np.int64)
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n, dtype=np.int64)
        deadline = self.deadlines(inst)
        by_edf = np.lexsort((position, deadline))  # earliest deadline first, ties by arrival
        rank = np.empty(n, dtype=np.int64)
        rank[by_edf] = np.arange(n, dtype=np.int64)
        first, completion, tm, tj, ts, te, tw = global_edf_kernel(
            np.ascontiguousarray(inst.release, dtype=np.int64),
            np.ascontiguousarray(inst.size, dtype=np.int64),
            np.ascontiguousarray(inst.indptr, dtype=np.int64),
            np.ascontiguousarray(inst.indices, dtype=np.int64),
            order,
            rank,
            int(inst.m),
            float(speed),
        )
        weight = get_problem(self.problem).flow_weights(inst)
        claimed = float(np.max(weight * (completion - inst.release), initial=0.0))
        self.counters["migrations"] = _migrations(tj, tm)
        return Outcome(
            algorithm=self.name,
            problem=self.problem,
            speed=speed,
            machine=first,
            arrival_step=position,
            dispatch_step=position.copy(),
            reject_step=np.full(n, -1, dtype=np.int64),
            completion=completion,
            step_time=inst.release[order].astype(np.float64),
            trace_machine=tm,
            trace_job=tj,
            trace_start=ts,
            trace_end=te,
            trace_work=tw,
            claimed_objective=claimed,
        )


def _migrations(tj: np.ndarray, tm: np.ndarray) -> int:
    """How many times a job resumed on a machine other than the one it last ran on."""
    if tj.size < 2:
        return 0
    by_job = np.argsort(tj, kind="stable")  # rows of one job are in time order already
    j, i = tj[by_job], tm[by_job]
    return int(np.count_nonzero((j[1:] == j[:-1]) & (i[1:] != i[:-1])))
