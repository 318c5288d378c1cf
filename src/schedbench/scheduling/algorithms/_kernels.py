"""Numba fast paths of the LoadBalancing algorithms (one kernel per rule).

Each kernel takes the jobs' sizes, the eligibility CSR arrays and the arrival order, and
returns per job the machine (−1: rejected on arrival) and, where the rule rejects late, the
arrival position at which a dispatched job was rejected (−1: never), plus a count of budget-
guard fires. Budget guards ask :data:`schedbench.scheduling.budget.allows_nb`, the compiled
twin of the rule the step path asks (count budget: every job weighs 1). The step-by-step
``on_arrival`` of each algorithm is an independent implementation of the same rule; the
conformance tests check that both agree.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from schedbench.scheduling.budget import allows_nb  # the budget rule, compiled (budget.py)


@njit(cache=True, inline="always")
def least_loaded(load: np.ndarray, indices: np.ndarray, start: int, end: int) -> int:
    """The machine of ``indices[start:end]`` with the smallest load, ties to the lowest index."""
    best = indices[start]
    best_load = load[best]
    for k in range(start + 1, end):
        i = indices[k]
        li = load[i]
        if li < best_load or (li == best_load and i < best):
            best = i
            best_load = li
    return best


@njit(cache=True)
def least_loaded_with_cap(
    size: np.ndarray, indptr: np.ndarray, indices: np.ndarray, order: np.ndarray, m: int, cap: float
) -> np.ndarray:
    """Greedy dispatch to the least-loaded eligible machine; reject (-1) if its load >= cap.

    ``cap = inf`` gives plain greedy (Azar–Naor–Rom).
    """
    n = size.shape[0]
    load = np.zeros(m, dtype=np.float64)
    machine = np.empty(n, dtype=np.int64)
    for pos in range(order.shape[0]):
        j = order[pos]
        i = least_loaded(load, indices, indptr[j], indptr[j + 1])
        if load[i] >= cap:
            machine[j] = -1
        else:
            machine[j] = i
            load[i] += size[j]
    return machine


@njit(cache=True)
def greedy_cap_kernel(size, indptr, indices, order, m, cap, eps, guard):
    """B2: least loaded; reject on arrival when load + p_j > cap, if the budget allows (with
    ``guard``; without it, reject regardless). Returns (machine, guard fires)."""
    n = size.shape[0]
    load = np.zeros(m, dtype=np.float64)
    machine = np.empty(n, dtype=np.int64)
    rejected = 0
    fires = 0
    for pos in range(order.shape[0]):
        j = order[pos]
        i = least_loaded(load, indices, indptr[j], indptr[j + 1])
        if load[i] + size[j] > cap:
            if not guard or allows_nb(rejected, 1, pos + 1, eps):
                machine[j] = -1
                rejected += 1
                continue
            fires += 1
        machine[j] = i
        load[i] += size[j]
    return machine, fires


@njit(cache=True)
def drop_every_k_kernel(size, indptr, indices, order, m, k):
    """B8: least loaded; each machine rejects every k-th job routed to it (k-th, 2k-th, ...)."""
    n = size.shape[0]
    load = np.zeros(m, dtype=np.float64)
    routed = np.zeros(m, dtype=np.int64)
    machine = np.empty(n, dtype=np.int64)
    for pos in range(order.shape[0]):
        j = order[pos]
        i = least_loaded(load, indices, indptr[j], indptr[j + 1])
        routed[i] += 1
        if routed[i] % k == 0:
            machine[j] = -1
        else:
            machine[j] = i
            load[i] += size[j]
    return machine


@njit(cache=True)
def random_two_kernel(size, indptr, indices, order, m, coins):
    """B12: one of the two least-loaded eligible machines, the second when ``coins[pos]`` ≥ ½
    (the coins are drawn by the caller, one per arrival, so both paths see the same ones)."""
    n = size.shape[0]
    load = np.zeros(m, dtype=np.float64)
    machine = np.empty(n, dtype=np.int64)
    for pos in range(order.shape[0]):
        j = order[pos]
        a, b = -1, -1  # best, second best by (load, index)
        for q in range(indptr[j], indptr[j + 1]):
            i = indices[q]
            if a < 0 or load[i] < load[a] or (load[i] == load[a] and i < a):
                b = a
                a = i
            elif b < 0 or load[i] < load[b] or (load[i] == load[b] and i < b):
                b = i
        i = a if (b < 0 or coins[pos] < 0.5) else b
        machine[j] = i
        load[i] += size[j]
    return machine


@njit(cache=True)
def size_class(p):
    """a(j) = ⌈log₂ p⌉ for an integer p ≥ 1."""
    k = 0
    while (1 << k) < p:
        k += 1
    return k


@njit(cache=True)
def lb_general_kernel(size, indptr, indices, order, m, alpha, beta, t_oracle, eps, guard, phases):
    """LB_GEN of rejection-model.md §2.2 (per-class greedy on virtual loads, cap α·T per class, overload rule
    on real load β·T rejecting the largest rounded job, ties latest dispatched). ``phases``:
    T(t) = 2^⌈log₂ LB(t)⌉ with LB the trivial prefix bound max(p_max, ⌈Σp/m⌉) of the rounded
    sizes (docs/models/rejection-model.md §2.3 (a),
    weaker bound), a new phase (fresh loads) each time T changes; otherwise T = ``t_oracle``.
    Returns (machine, reject position, guard fires)."""
    n = size.shape[0]
    kmax = 0
    for j in range(n):
        kmax = max(kmax, size_class(size[j]))
    K = kmax + 1
    V = np.zeros((m, K))
    R = np.zeros(m)
    head = np.full((m, K), -1, dtype=np.int64)  # latest dispatched live job of (machine, class)
    prev = np.full(n, -1, dtype=np.int64)  # the one dispatched before it
    machine = np.empty(n, dtype=np.int64)
    reject_pos = np.full(n, -1, dtype=np.int64)
    rejected = 0
    fires = 0
    total = 0.0
    pmax = 0
    T = t_oracle
    for pos in range(order.shape[0]):
        j = order[pos]
        k = size_class(size[j])
        ph = float(1 << k)
        if phases:
            total += ph
            pmax = max(pmax, 1 << k)
            lb = max(float(pmax), np.ceil(total / m))
            t_new = 1.0
            while t_new < lb:
                t_new *= 2.0
            if t_new != T:
                T = t_new
                V[:, :] = 0.0
                R[:] = 0.0
                head[:, :] = -1
        # least virtual class-k load among the eligible machines, ties to the lowest index
        start, end = indptr[j], indptr[j + 1]
        i = indices[start]
        for q in range(start + 1, end):
            c = indices[q]
            if V[c, k] < V[i, k] or (V[c, k] == V[i, k] and c < i):
                i = c
        if V[i, k] + ph > alpha * T:
            if not guard or allows_nb(rejected, 1, pos + 1, eps):
                machine[j] = -1
                rejected += 1
                continue
            fires += 1
        machine[j] = i
        V[i, k] += ph
        R[i] += ph
        prev[j] = head[i, k]
        head[i, k] = j
        while R[i] > beta * T:
            kk = K - 1
            while kk >= 0 and head[i, kk] < 0:
                kk -= 1
            if guard and not allows_nb(rejected, 1, pos + 1, eps):
                fires += 1
                break
            jj = head[i, kk]
            head[i, kk] = prev[jj]
            reject_pos[jj] = pos
            R[i] -= float(1 << kk)
            rejected += 1
    return machine, reject_pos, fires


PHASES, DOUBLING = 1, 2  # the online stand-ins for T* of lb_unit_online_kernel


@njit(cache=True)
def _augment(j, T, indptr, indices, order, cnt, assign, jn_next, jn_prev, mhead, queue, seen, reached, parent, stamp):
    """One augmenting path from job j (position) in the prefix b-matching with capacity T per
    machine (``_oracles.PrefixUnitOpt``, breadth first); flips it and returns True, or False
    when none exists (then OPT(prefix) > T). Whether a path exists does not depend on which
    feasible assignment of the earlier jobs is kept, so neither does T."""
    seen[j] = stamp
    queue[0] = j
    qn = 1
    q = 0
    while q < qn:
        u = queue[q]
        q += 1
        o = order[u]
        for k in range(indptr[o], indptr[o + 1]):
            i = indices[k]
            if reached[i] == stamp:
                continue
            reached[i] = stamp
            parent[i] = u
            if cnt[i] < T:  # a machine with room: flip the path back to j
                f = i
                while True:
                    v = parent[f]
                    old = assign[v]
                    if old >= 0:  # v leaves old's list
                        if jn_prev[v] >= 0:
                            jn_next[jn_prev[v]] = jn_next[v]
                        else:
                            mhead[old] = jn_next[v]
                        if jn_next[v] >= 0:
                            jn_prev[jn_next[v]] = jn_prev[v]
                        cnt[old] -= 1
                    assign[v] = f  # and joins f's
                    jn_prev[v] = -1
                    jn_next[v] = mhead[f]
                    if mhead[f] >= 0:
                        jn_prev[mhead[f]] = v
                    mhead[f] = v
                    cnt[f] += 1
                    if old < 0:
                        return True
                    f = old
            w = mhead[i]
            while w >= 0:
                if seen[w] != stamp:
                    seen[w] = stamp
                    queue[qn] = w
                    qn += 1
                w = jn_next[w]
    return False


@njit(cache=True)
def lb_unit_online_kernel(size, indptr, indices, order, m, alpha, eps, guard, mode):
    """LbUnitReject without T* (rejection-model.md §2.3): ``mode`` PHASES (T = the power of two
    ≥ OPT(prefix), kept by an incremental b-matching; a change of T starts a phase with fresh
    loads) or DOUBLING (T from 1, doubled when a rejection would pass ε·(phase arrivals)).
    Least-loaded dispatch (ties to the lowest index), reject at load ≥ α·T, the optional budget
    guard as the step path. Returns (machine, guard fires, phases)."""
    n = order.shape[0]
    machine = np.full(size.shape[0], -1, np.int64)
    load = np.zeros(m, np.float64)
    cnt = np.zeros(m, np.int64)
    assign = np.full(n, -1, np.int64)
    jn_next = np.full(n, -1, np.int64)
    jn_prev = np.full(n, -1, np.int64)
    mhead = np.full(m, -1, np.int64)
    queue = np.empty(n, np.int64)
    seen = np.zeros(n, np.int64)
    reached = np.zeros(m, np.int64)
    parent = np.zeros(m, np.int64)
    stamp = 0
    Tm = 1  # the b-matching's capacity (PrefixUnitOpt.T)
    T = 1.0
    rejected = 0
    ph_arrived = 0
    ph_rejected = 0
    fires = 0
    phases = 1
    for pos in range(n):
        o = order[pos]
        if mode == PHASES:
            while True:
                stamp += 1
                if _augment(
                    pos,
                    Tm,
                    indptr,
                    indices,
                    order,
                    cnt,
                    assign,
                    jn_next,
                    jn_prev,
                    mhead,
                    queue,
                    seen,
                    reached,
                    parent,
                    stamp,
                ):
                    break
                Tm *= 2
            if float(Tm) != T:
                T = float(Tm)
                load[:] = 0.0
                ph_arrived = 0
                ph_rejected = 0
                phases += 1
        ph_arrived += 1
        while True:
            i = -1
            for k in range(indptr[o], indptr[o + 1]):
                c = indices[k]
                if i < 0 or load[c] < load[i] or (load[c] == load[i] and c < i):
                    i = c
            if load[i] < alpha * T:
                break
            if mode == DOUBLING and not allows_nb(ph_rejected, 1, ph_arrived, eps):
                T = 2.0 * T
                load[:] = 0.0
                ph_arrived = 1
                ph_rejected = 0
                phases += 1
                continue
            if guard and not allows_nb(rejected, 1, pos + 1, eps):
                fires += 1
                break
            rejected += 1
            ph_rejected += 1
            i = -1
            break
        if i >= 0:
            machine[o] = i
            load[i] += size[o]
    return machine, fires, phases
