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

from schedbench.hall.jit import compiled
from schedbench.scheduling.algorithms._oracles import pow2_at_least_nb
from schedbench.scheduling.budget import allows_nb  # the budget rule, compiled (budget.py)


@compiled(inline="always")
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


@compiled
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


@compiled
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


@compiled
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


@compiled
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


@compiled
def size_class(p):
    """a(j) = ⌈log₂ p⌉ for an integer p ≥ 1."""
    k = 0
    while (1 << k) < p:
        k += 1
    return k


@compiled
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
            t_new = pow2_at_least_nb(lb)  # lb ≥ 1
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


_NEXT, _START, _END = 0, 1, 2  # the fields of a job's row in the b-matching's ``rec``


@compiled(inline="always")
def _attach(v, i, rec, assign, mhead, cnt):
    """Job (position) v joins the front of machine i's list in the prefix b-matching."""
    assign[v] = i
    rec[v, _NEXT] = mhead[i]
    mhead[i] = v
    cnt[i] += 1


@compiled(inline="always")
def _move(v, p, f, rec, assign, mhead, cnt):
    """Job (position) v leaves its machine's list, where it follows job p (−1: first), for
    machine f's. (Singly linked lists: a back link, written at every arrival, costs more than
    the searches need.)"""
    i = assign[v]
    if p >= 0:
        rec[p, _NEXT] = rec[v, _NEXT]
    else:
        mhead[i] = rec[v, _NEXT]
    cnt[i] -= 1
    _attach(v, f, rec, assign, mhead, cnt)


@compiled
def _incidence(elig, rec, ptr, jobs):
    """Fills ``ptr``, ``jobs``: per machine, the jobs (positions, increasing) eligible on it (CSR)."""
    n = rec.shape[0]
    m = ptr.shape[0] - 1
    ptr[:] = 0
    for k in range(elig.shape[0]):
        ptr[elig[k] + 1] += 1
    for i in range(m):
        ptr[i + 1] += ptr[i]
    fill = ptr[:m].copy()
    for v in range(n):
        for k in range(rec[v, _START], rec[v, _END]):
            i = elig[k]
            jobs[fill[i]] = v
            fill[i] += 1


#: Forward search work (jobs scanned) beyond the number of machines with room after which the
#: backward search starts (:func:`_augment`).
_BACKWARD_AFTER = 32


@compiled
def _augment(
    pos,
    T,
    elig,
    rec,
    assign,
    mhead,
    cnt,
    fq,
    fmark,
    pjob,
    ppred,
    rq,
    rmark,
    rjob,
    rsucc,
    room,
    nroom,
    inc_ptr,
    inc,
    stamp,
):
    """Add job ``pos`` (arrival position) to the prefix b-matching with capacity T per machine by
    one augmenting path, or return −1 when none exists (then OPT(prefix) > T; nothing
    changed). The path is searched over *machines*: i leads to c when a job w assigned to i
    is eligible on c (w can move to c). A forward breadth-first search starts from the job's
    eligible machines (all full) and stops at the first machine with room; ``pjob[c]`` is the
    job that would move into c (−1 for the job's own machines) and ``ppred[c]`` the job before
    it in its machine's list. When it has scanned more than
    ``nroom`` + :data:`_BACKWARD_AFTER` jobs (few machines with room, so a forward search
    alone would cover much of the graph), a backward breadth-first search starts from the
    ``nroom`` machines with room (``room``) over the jobs eligible on a machine
    (``inc_ptr``, ``inc``, filled then: ``inc_ptr[m]`` is 0 before): ``rjob[i]`` is the job on i that would move to
    ``rsucc[i]`` (−1 at a machine with room); the two alternate by work done and stop at the
    first machine both reached, the only one on both paths, so the joined path is simple.
    Either search running out proves that no path exists. Whether a path exists does not
    depend on which feasible assignment of the earlier jobs is kept, so neither does T
    (``_oracles.PrefixUnitOpt`` searches jobs, from the job only, and keeps another
    assignment, with the same answers). Returns the machine that gained a job (the path's
    end) or −1. ``fmark``/``rmark`` equal ``stamp`` at the machines each search reached."""
    fn = 0
    for k in range(rec[pos, _START], rec[pos, _END]):
        i = elig[k]
        if fmark[i] != stamp:
            fmark[i] = stamp
            pjob[i] = -1
            fq[fn] = i
            fn += 1
    fh = 0
    rh = 0
    rn = -1  # the backward search has not started
    fwork = 0
    rwork = 0
    x = -1  # the meeting machine
    while x < 0:
        if rn < 0 or fwork <= rwork:
            if fh == fn:
                return -1
            i = fq[fh]
            fh += 1
            p = -1
            w = mhead[i]
            while w >= 0 and x < 0:
                fwork += 1
                for k in range(rec[w, _START], rec[w, _END]):
                    c = elig[k]
                    if fmark[c] == stamp:
                        continue
                    fmark[c] = stamp
                    pjob[c] = w
                    ppred[c] = p
                    if cnt[c] < T or rmark[c] == stamp:
                        x = c
                        break
                    fq[fn] = c
                    fn += 1
                p = w
                w = rec[w, _NEXT]
            if x < 0 and rn < 0 and fwork > nroom + _BACKWARD_AFTER:
                if inc_ptr[-1] == 0:
                    _incidence(elig, rec, inc_ptr, inc)
                rn = 0
                for q in range(nroom):
                    c = room[q]
                    rmark[c] = stamp
                    rjob[c] = -1
                    rq[rn] = c
                    rn += 1
                rwork = nroom
        else:
            if rh == rn:
                return -1
            c = rq[rh]
            rh += 1
            for q in range(inc_ptr[c], inc_ptr[c + 1]):
                w = inc[q]
                if w >= pos:  # not in the prefix yet (increasing positions)
                    break
                rwork += 1
                i = assign[w]
                if i == c or rmark[i] == stamp:
                    continue
                rmark[i] = stamp
                rjob[i] = w
                rsucc[i] = c
                if fmark[i] == stamp:
                    x = i
                    break
                rq[rn] = i
                rn += 1
    # flip: the backward half first (x → ... → a machine with room; it touches no machine of
    # the forward half but x, so the links in ppred still hold), then the forward half (each
    # machine loses its job before it gains one)
    y = x
    while rmark[y] == stamp and rjob[y] >= 0:
        v = rjob[y]
        p = -1  # v's predecessor in y's list
        w = mhead[y]
        while w != v:
            p = w
            w = rec[w, _NEXT]
        z = rsucc[y]
        _move(v, p, z, rec, assign, mhead, cnt)
        y = z
    f = x
    while True:
        v = pjob[f]
        if v < 0:
            _attach(pos, f, rec, assign, mhead, cnt)
            return y
        old = assign[v]
        _move(v, ppred[f], f, rec, assign, mhead, cnt)
        f = old


@compiled
def prefix_unit_opt_pow2(indptr, indices, order, m):
    """For each arrival position t, T(t) = the power of two ≥ OPT(jobs order[:t+1]) (at least
    1) for unit jobs: the values of ``_oracles.PrefixUnitOpt.add``. Keeps a feasible
    b-matching of the prefix with capacity T: a new job goes to its eligible machine with the
    fewest jobs if that one has room (no search: the matching stays balanced, so augmenting
    paths are needed only when the prefix nearly fills T·m), else by one augmenting path
    (:func:`_augment`); when none exists, or when the prefix has more than T·m jobs (no search
    needed), T doubles and the job fits on that machine (every machine holds ≤ the old T).
    Within a phase the machines' counts only grow (a path's inner machines lose one job and
    gain one), so the machines with room (``room``, with their places ``where``) are kept by
    removal. Per job, one row of ``rec`` (list links and its eligible machines' range in
    ``elig``, which holds them in arrival order) keeps a search step to few cache lines."""
    n = order.shape[0]
    out = np.empty(n, np.int64)
    rec = np.empty((n, 3), np.int64)
    total = 0
    for pos in range(n):
        o = order[pos]
        total += indptr[o + 1] - indptr[o]
    elig = np.empty(total, np.int64)
    k = 0
    for pos in range(n):
        o = order[pos]
        rec[pos, _START] = k
        for q in range(indptr[o], indptr[o + 1]):
            elig[k] = indices[q]
            k += 1
        rec[pos, _END] = k
    cnt = np.zeros(m, np.int64)
    assign = np.full(n, -1, np.int64)
    mhead = np.full(m, -1, np.int64)
    fq = np.empty(m, np.int64)
    rq = np.empty(m, np.int64)
    fmark = np.zeros(m, np.int64)
    rmark = np.zeros(m, np.int64)
    pjob = np.empty(m, np.int64)
    ppred = np.empty(m, np.int64)
    rjob = np.empty(m, np.int64)
    rsucc = np.empty(m, np.int64)
    room = np.arange(m)
    where = np.arange(m)
    nroom = m
    inc_ptr = np.zeros(m + 1, np.int64)  # filled at the first backward search
    inc = np.empty(total, np.int64)
    stamp = 0
    T = 1
    for pos in range(n):
        s, e = rec[pos, _START], rec[pos, _END]
        best = elig[s]
        for k in range(s + 1, e):
            if cnt[elig[k]] < cnt[best]:
                best = elig[k]
        gained = best
        if cnt[best] >= T:
            gained = -1
            if pos + 1 <= T * m:
                stamp += 1
                gained = _augment(
                    pos,
                    T,
                    elig,
                    rec,
                    assign,
                    mhead,
                    cnt,
                    fq,
                    fmark,
                    pjob,
                    ppred,
                    rq,
                    rmark,
                    rjob,
                    rsucc,
                    room,
                    nroom,
                    inc_ptr,
                    inc,
                    stamp,
                )
            if gained < 0:  # a new phase: every machine has room again
                T *= 2
                nroom = m
                for i in range(m):
                    room[i] = i
                    where[i] = i
                gained = best
                _attach(pos, best, rec, assign, mhead, cnt)
        else:
            _attach(pos, best, rec, assign, mhead, cnt)
        if cnt[gained] == T:  # full: leaves the machines with room
            nroom -= 1
            last = room[nroom]
            room[where[gained]] = last
            where[last] = where[gained]
        out[pos] = T
    return out


@compiled
def lb_unit_online_kernel(size, indptr, indices, order, m, alpha, eps, guard, mode):
    """LbUnitReject without T* (rejection-model.md §2.3): ``mode`` PHASES (T = the power of two
    ≥ OPT(prefix), kept by an incremental b-matching, :func:`prefix_unit_opt_pow2`; a change of
    T starts a phase with fresh loads) or DOUBLING (T from 1, doubled when a rejection would
    pass ε·(phase arrivals)). Least-loaded dispatch (ties to the lowest index), reject at
    load ≥ α·T, the optional budget guard as the step path. Returns (machine, guard fires,
    phases)."""
    n = order.shape[0]
    machine = np.full(size.shape[0], -1, np.int64)
    load = np.zeros(m, np.float64)
    if mode == PHASES:
        t_prefix = prefix_unit_opt_pow2(indptr, indices, order, m)
    else:
        t_prefix = np.empty(0, np.int64)
    T = 1.0
    rejected = 0
    ph_arrived = 0
    ph_rejected = 0
    fires = 0
    phases = 1
    for pos in range(n):
        o = order[pos]
        if mode == PHASES and float(t_prefix[pos]) != T:
            T = float(t_prefix[pos])
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
