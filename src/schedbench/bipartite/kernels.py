"""Numba kernels of bipartite load balancing with heterogeneous servers
(``docs/models/bipartite.md`` §1–§3) and the van der Boor–Comte token policy (§6).

Exponential services make the next event a race: an arrival (rate Λ) or a departure from a
busy server of class c (rate μ_c·busy_c), the server uniform among the busy ones of its class.
Each visited state is weighted by its expected holding time 1/q (Rao–Blackwellised time
averages); E[T] follows from Little's law outside the kernel.

Servers of each speed class live in one segment of ``order``, kept sorted by queue length with
O(1) swaps (``first[c, q]`` = start of the block of class-c servers holding q jobs). This gives,
on a complete graph, O(#classes) arrivals for every policy (shortest queue, fastest idle, ...),
and O(#classes) departures everywhere. On a sparse graph an arrival scans its type's neighbour
list, O(|S_m|), sorted by decreasing speed.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.numba_helpers import draw_index, next_batch

# policy codes
RANDOM, RANDOM_MU, JSQ, JFSQ, JIQ, JFIQ, JSQD = range(7)
POLICY_CODES = {
    "random": RANDOM,
    "random-mu": RANDOM_MU,
    "jsq": JSQ,
    "jfsq": JFSQ,
    "jiq": JIQ,
    "jfiq": JFIQ,
    "jsq-d": JSQD,
}
# accumulator columns per batch; then the per-class busy-time integrals
B_TIME, B_JOBS, B_ARRIVALS, B_BLOCKED = range(4)
B_FIXED = 4
OVERFLOW = -1


@compiled(inline="always")
def _move_up(s, c, Q, order, pos, first):
    """Server s of class c goes from q to q + 1 jobs: swap it to the end of block q."""
    q = Q[s]
    e = first[c, q + 1] - 1
    other = order[e]
    order[pos[s]], order[e] = other, s
    pos[other], pos[s] = pos[s], e
    first[c, q + 1] -= 1
    Q[s] = q + 1


@compiled(inline="always")
def _move_down(s, c, Q, order, pos, first):
    """Server s of class c goes from q to q − 1 jobs: swap it to the start of block q."""
    q = Q[s]
    b = first[c, q]
    other = order[b]
    order[pos[s]], order[b] = other, s
    pos[other], pos[s] = pos[s], b
    first[c, q] += 1
    Q[s] = q - 1


@compiled(inline="always")
def _uniform_in(a, b):
    return a + int(np.random.random() * (b - a))


@compiled(inline="always")
def _count_arrival(acc, batch, in_batch, blocked, clock, warmup_time, batch_arrivals):
    """Count an arrival, and whether it was blocked, in its batch (none in the warm-up), then
    move on (:func:`next_batch`). Returns (batch, arrivals in batch)."""
    if batch >= 0:
        acc[batch, B_ARRIVALS] += 1.0
        if blocked:
            acc[batch, B_BLOCKED] += 1.0
        in_batch += 1
    return next_batch(batch, in_batch, clock, warmup_time, batch_arrivals)


@compiled
def _shortest_of_sample(pool, lo, hi, d, Q):
    """JSQ(d): min(d, hi − lo) distinct servers of pool[lo:hi] drawn uniformly (by rejection,
    fine for d << hi − lo), the one with the fewest jobs, ties uniform."""
    m = d if d < hi - lo else hi - lo
    picked = np.empty(m, dtype=np.int64)
    best = -1
    ties = 0
    for r in range(m):
        while True:
            s = pool[lo + int(np.random.random() * (hi - lo))]
            fresh = True
            for t in range(r):
                if picked[t] == s:
                    fresh = False
                    break
            if fresh:
                break
        picked[r] = s
        if best < 0 or Q[s] < Q[best]:
            best, ties = s, 1
        elif Q[s] == Q[best]:
            ties += 1
            if np.random.random() * ties < 1.0:
                best = s
    return best


@compiled
def _choose_complete(policy, N, C, Q, order, cstart, cend, first, mu_c, d, jfiq_fallback):
    """The server for an arriving job on a complete graph (all servers eligible); ``mu_c[c]`` is
    the rate of speed class c (the servers of order[cstart[c]:cend[c]])."""
    if policy == RANDOM:
        return int(np.random.random() * N)
    if policy == RANDOM_MU:  # a class ∝ μ_c·(its size), then a uniform server of the class
        total = 0.0
        for c in range(C):
            total += mu_c[c] * (cend[c] - cstart[c])
        u = np.random.random() * total
        for c in range(C):
            w = mu_c[c] * (cend[c] - cstart[c])
            if u < w:
                return order[_uniform_in(cstart[c], cend[c])]
            u -= w
        for c in range(C - 1, -1, -1):  # rounding guard: the last non-empty class
            if cend[c] > cstart[c]:
                return order[_uniform_in(cstart[c], cend[c])]
    if policy == JSQD:
        return _shortest_of_sample(order, 0, N, d, Q)  # `order` holds every server once
    if policy == JIQ or policy == JFIQ:
        total_idle = 0
        for c in range(C):
            idle_c = first[c, 1] - first[c, 0]
            if idle_c > 0 and policy == JFIQ:
                return order[_uniform_in(first[c, 0], first[c, 1])]
            total_idle += idle_c
        if total_idle > 0:  # JIQ: uniform over all idle servers
            u = int(np.random.random() * total_idle)
            for c in range(C):
                idle_c = first[c, 1] - first[c, 0]
                if u < idle_c:
                    return order[first[c, 0] + u]
                u -= idle_c
        if policy == JFIQ and jfiq_fallback == 1:
            policy = JFSQ
        else:
            return int(np.random.random() * N)
    # JSQ / JFSQ: the smallest queue over classes (first server of each class segment)
    qmin = -1
    for c in range(C):
        if cend[c] > cstart[c]:
            q = Q[order[cstart[c]]]
            if qmin < 0 or q < qmin:
                qmin = q
    if policy == JFSQ:
        for c in range(C):  # classes are sorted fastest first
            if cend[c] > cstart[c] and first[c, qmin + 1] > first[c, qmin]:
                return order[_uniform_in(first[c, qmin], first[c, qmin + 1])]
    total = 0
    for c in range(C):
        total += first[c, qmin + 1] - first[c, qmin]
    u = int(np.random.random() * total)
    for c in range(C):
        cnt = first[c, qmin + 1] - first[c, qmin]
        if u < cnt:
            return order[first[c, qmin] + u]
        u -= cnt
    return order[cstart[0]]


@compiled
def _choose_scan(policy, nbr, lo, hi, Q, mu, d, ties_random, jfiq_fallback):
    """The server for an arriving job of a type whose neighbours are nbr[lo:hi] (sorted by
    decreasing μ, then index). ``ties_random=False`` breaks remaining ties to the lowest index."""
    size = hi - lo
    if policy == RANDOM:
        return nbr[lo + int(np.random.random() * size)]
    if policy == RANDOM_MU:
        total = 0.0
        for r in range(lo, hi):
            total += mu[nbr[r]]
        u = np.random.random() * total
        for r in range(lo, hi):
            u -= mu[nbr[r]]
            if u < 0:
                return nbr[r]
        return nbr[hi - 1]
    if policy == JIQ or policy == JFIQ:
        best = -1
        ties = 0
        for r in range(lo, hi):
            s = nbr[r]
            if Q[s] != 0:
                continue
            if policy == JFIQ and best >= 0 and mu[s] < mu[best]:
                break  # sorted by speed: no faster idle server follows
            ties += 1
            if best < 0 or (ties_random and np.random.random() * ties < 1.0) or (not ties_random and s < best):
                best = s
        if best >= 0:
            return best
        if policy == JFIQ and jfiq_fallback == 1:
            policy = JFSQ
        else:
            return nbr[lo + int(np.random.random() * size)]
    if policy == JSQD:
        return _shortest_of_sample(nbr, lo, hi, d, Q)
    # JSQ / JFSQ
    best = -1
    ties = 0
    for r in range(lo, hi):
        s = nbr[r]
        if best < 0 or Q[s] < Q[best] or (policy == JFSQ and Q[s] == Q[best] and mu[s] > mu[best]):
            best, ties = s, 1
        elif Q[s] == Q[best] and (policy == JSQ or mu[s] == mu[best]):
            ties += 1
            if (ties_random and np.random.random() * ties < 1.0) or (not ties_random and s < best):
                best = s
    return best


@compiled
def queue_kernel(
    mu,
    cls,
    C,
    lam_tot,
    lam_cum,
    nbr_ptr,
    nbr,
    complete,
    policy,
    d,
    ties_random,
    jfiq_fallback,
    buffers,
    qcap,
    warmup_time,
    n_batches,
    batch_arrivals,
    seed,
):
    """Simulate the dispatching system; returns (acc[n_batches, 4 + C], events, status)."""
    np.random.seed(seed)
    N = mu.shape[0]
    Q = np.zeros(N, dtype=np.int64)
    # class segments of `order`, blocks by queue length
    cstart = np.zeros(C, dtype=np.int64)
    cend = np.zeros(C, dtype=np.int64)
    counts = np.zeros(C, dtype=np.int64)
    for s in range(N):
        counts[cls[s]] += 1
    acc_start = 0
    for c in range(C):
        cstart[c] = acc_start
        acc_start += counts[c]
        cend[c] = acc_start
    order = np.empty(N, dtype=np.int64)
    pos = np.empty(N, dtype=np.int64)
    fill = cstart.copy()
    for s in range(N):
        c = cls[s]
        order[fill[c]] = s
        pos[s] = fill[c]
        fill[c] += 1
    first = np.empty((C, qcap + 2), dtype=np.int64)
    for c in range(C):
        first[c, 0] = cstart[c]
        for q in range(1, qcap + 2):
            first[c, q] = cend[c]
    mu_c = np.zeros(C)
    for s in range(N):
        mu_c[cls[s]] = mu[s]
    acc = np.zeros((n_batches, B_FIXED + C))
    batch = -1
    in_batch = 0
    clock = 0.0
    jobs = 0
    events = 0
    while True:
        q_dep = 0.0
        for c in range(C):
            q_dep += mu_c[c] * (cend[c] - first[c, 1])
        q_tot = lam_tot + q_dep
        hold = 1.0 / q_tot
        if batch >= 0:
            row = acc[batch]
            row[B_TIME] += hold
            row[B_JOBS] += hold * jobs
            for c in range(C):
                row[B_FIXED + c] += hold * (cend[c] - first[c, 1])
        else:
            clock += hold
        events += 1
        u = np.random.random() * q_tot
        if u < lam_tot:
            m = draw_index(lam_cum, np.random.random())  # a type drawn ∝ λ_m
            if complete and ties_random:
                s = _choose_complete(policy, N, C, Q, order, cstart, cend, first, mu_c, d, jfiq_fallback)
            else:
                s = _choose_scan(policy, nbr, nbr_ptr[m], nbr_ptr[m + 1], Q, mu, d, ties_random, jfiq_fallback)
            blocked = Q[s] >= buffers[s]
            if not blocked:
                if Q[s] >= qcap:
                    return acc, events, OVERFLOW
                _move_up(s, cls[s], Q, order, pos, first)
                jobs += 1
            batch, in_batch = _count_arrival(acc, batch, in_batch, blocked, clock, warmup_time, batch_arrivals)
            if batch == n_batches:
                return acc, events, 0
        else:
            u -= lam_tot
            c = 0
            while c < C - 1 and u >= mu_c[c] * (cend[c] - first[c, 1]):
                u -= mu_c[c] * (cend[c] - first[c, 1])
                c += 1
            while cend[c] == first[c, 1]:  # rounding guard: a class with a busy server
                c = (c + 1) % C
            s = order[_uniform_in(first[c, 1], cend[c])]
            _move_down(s, c, Q, order, pos, first)
            jobs -= 1


@compiled
def token_kernel(mu, tokens, lam_tot, lam_cum, compat, warmup_time, n_batches, batch_arrivals, seed):
    """Oldest-token policy (van der Boor–Comte): server i has tokens[i] tokens; available tokens
    form one FIFO list by release time; an arriving type-k job takes the oldest available token
    of a compatible server (compat[k, i]) or is blocked; a completion returns the token to the
    tail. Returns (acc[n_batches, 4 + N], events) with per-server busy-time columns."""
    np.random.seed(seed)
    N = mu.shape[0]
    L = 0
    for i in range(N):
        L += tokens[i]
    owner = np.empty(L, dtype=np.int64)
    nxt = np.full(L, -1, dtype=np.int64)
    prv = np.full(L, -1, dtype=np.int64)
    # per server: stack of its tokens currently held by jobs (any order: tokens are identical)
    held = np.empty(L, dtype=np.int64)
    held_start = np.zeros(N + 1, dtype=np.int64)
    for i in range(N):
        held_start[i + 1] = held_start[i] + tokens[i]
    n_held = np.zeros(N, dtype=np.int64)
    # initial list in server order (the stationary law does not depend on it)
    t = 0
    for i in range(N):
        for _ in range(tokens[i]):
            owner[t] = i
            t += 1
    head = -1
    tail = -1
    for t in range(L):
        if head < 0:
            head = t
        else:
            nxt[tail] = t
            prv[t] = tail
        tail = t
    acc = np.zeros((n_batches, B_FIXED + N))
    batch = -1
    in_batch = 0
    clock = 0.0
    jobs = 0
    events = 0
    while True:
        q_dep = 0.0
        for i in range(N):
            if n_held[i] > 0:
                q_dep += mu[i]
        q_tot = lam_tot + q_dep
        hold = 1.0 / q_tot
        if batch >= 0:
            row = acc[batch]
            row[B_TIME] += hold
            row[B_JOBS] += hold * jobs
            for i in range(N):
                row[B_FIXED + i] += hold * n_held[i]
        else:
            clock += hold
        events += 1
        u = np.random.random() * q_tot
        if u < lam_tot:
            k = draw_index(lam_cum, np.random.random())
            t = head
            while t >= 0 and not compat[k, owner[t]]:
                t = nxt[t]
            blocked = t < 0
            if not blocked:  # unlink token t, give it to the job
                if prv[t] >= 0:
                    nxt[prv[t]] = nxt[t]
                else:
                    head = nxt[t]
                if nxt[t] >= 0:
                    prv[nxt[t]] = prv[t]
                else:
                    tail = prv[t]
                i = owner[t]
                held[held_start[i] + n_held[i]] = t
                n_held[i] += 1
                jobs += 1
            batch, in_batch = _count_arrival(acc, batch, in_batch, blocked, clock, warmup_time, batch_arrivals)
            if batch == n_batches:
                return acc, events
        else:
            u -= lam_tot
            i = 0
            while True:
                if n_held[i] > 0:
                    if u < mu[i]:
                        break
                    u -= mu[i]
                i += 1
                if i == N:  # rounding guard
                    i = 0
                    while n_held[i] == 0:
                        i += 1
                    break
            n_held[i] -= 1
            t = held[held_start[i] + n_held[i]]
            jobs -= 1
            nxt[t] = -1
            prv[t] = tail
            if tail >= 0:
                nxt[tail] = t
            else:
                head = t
            tail = t
