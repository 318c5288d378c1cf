"""Numba kernels of the loss system with adaptive multiserver jobs
(``docs/models/loss-system.md`` §1–§3).

Two simulators of the same model that share no event logic:

* :func:`aggregated_kernel` — the exact-in-law CTMC on c = (c_1..c_d), c_j the busy servers
  holding a job split j ways. One arrival needs only min(d, I_s) where I_s ~ Hypergeometric
  (n, I, k) is the number of idle servers in the sample: it is drawn by inversion over
  s = s_min..d−1 from the log-factorial table (O(d) per event, whatever n and k). The kernel walks
  the jump chain and weights every visited state by its expected holding time 1/q(state)
  (a Rao–Blackwellised time average, exact for stationary means).
* :func:`event_kernel` — the model as written: n servers with idle flags, a uniform k-subset
  drawn by partial Fisher–Yates (O(k) per arrival), sub-jobs placed on idle sampled servers,
  departures from a binary heap of real service completion times (exponential or deterministic
  job sizes), counting estimators only.

Both return per-batch accumulators; estimators and confidence intervals live in
:mod:`schedbench.loss.simulate`.
"""

from __future__ import annotations

import math

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.numba_helpers import next_batch

# accumulator columns (per batch) ------------------------------------------------------------
A_ARRIVALS, A_BLOCKED, A_TIME, A_P0, A_BUSY, A_JOBS, A_RESP, A_DONE = range(8)
N_FIXED = 8  # then: accepted with J = j (j = 1..d), then time-weighted P(J = j | I) (j = 1..d)


@compiled(inline="always")
def _split_probabilities(n, idle, k, d, logfact, out):
    """out[s] = P(min(d, I_s) = s), s = 0..d, for I_s ~ Hypergeometric(n, idle, k)."""
    for s in range(d + 1):
        out[s] = 0.0
    if idle == 0:
        out[0] = 1.0
        return
    s_min = k - (n - idle)
    if s_min < 0:
        s_min = 0
    s_max = k if k < idle else idle
    if s_min >= d:
        out[d] = 1.0
        return
    # log P(I_s = s_min) = log C(idle, s_min) + log C(n-idle, k-s_min) - log C(n, k)
    lp = (
        logfact[idle]
        - logfact[s_min]
        - logfact[idle - s_min]
        + logfact[n - idle]
        - logfact[k - s_min]
        - logfact[n - idle - k + s_min]
        - logfact[n]
        + logfact[k]
        + logfact[n - k]
    )
    p = math.exp(lp)
    total = 0.0
    s = s_min
    while s < d:
        out[s] = p
        total += p
        if s == s_max:
            break
        p *= (idle - s) * (k - s) / ((s + 1.0) * (n - idle - k + s + 1.0))
        s += 1
    if s_max < d:  # the whole support lies below d: renormalise away rounding
        for t in range(d):
            out[t] /= total
    else:
        rest = 1.0 - total
        out[d] = rest if rest > 0.0 else 0.0


@compiled
def aggregated_kernel(n, k, d, lam_tot, mu, independent, c0, warmup_time, n_batches, batch_arrivals, logfact, seed):
    """Jump-chain simulation of the aggregated CTMC. Returns (acc[n_batches, 8+2d], events)."""
    np.random.seed(seed)
    c = c0.copy()  # busy servers per class j = 1..d (index j-1)
    acc = np.zeros((n_batches, N_FIXED + 2 * d))
    probs = np.zeros(d + 1)
    rate = np.zeros(d)
    busy = 0
    for j in range(d):
        busy += c[j]
    clock = 0.0
    batch = -1  # -1: warm-up
    arrivals_in_batch = 0
    events = 0
    while True:
        idle = n - busy
        q_dep = 0.0
        for j in range(d):
            rate[j] = mu * c[j] * ((j + 1) if independent else 1)
            q_dep += rate[j]
        q = lam_tot + q_dep
        hold = 1.0 / q
        _split_probabilities(n, idle, k, d, logfact, probs)
        if batch >= 0:
            row = acc[batch]
            row[A_TIME] += hold
            row[A_P0] += hold * probs[0]
            row[A_BUSY] += hold * busy
            jobs = 0.0
            for j in range(d):
                jobs += c[j] / ((j + 1.0) if not independent else 1.0)
                row[N_FIXED + d + j] += hold * probs[j + 1]
            row[A_JOBS] += hold * jobs  # independent: busy servers (jobs are not tracked)
        else:
            clock += hold
        events += 1
        u = np.random.random() * q
        if u < lam_tot:  # arrival
            v = np.random.random()
            s = 0
            while s < d and v >= probs[s]:
                v -= probs[s]
                s += 1
            if batch >= 0:
                row = acc[batch]
                row[A_ARRIVALS] += 1.0
                if s == 0:
                    row[A_BLOCKED] += 1.0
                else:
                    row[N_FIXED + s - 1] += 1.0
                arrivals_in_batch += 1
            if s > 0:
                c[s - 1] += s
                busy += s
            batch, arrivals_in_batch = next_batch(batch, arrivals_in_batch, clock, warmup_time, batch_arrivals)
            if batch == n_batches:
                break
        else:  # departure of class j, chosen with probability ∝ rate[j]
            u -= lam_tot
            j = 0
            while j < d - 1 and u >= rate[j]:
                u -= rate[j]
                j += 1
            while c[j] == 0:  # guard against rounding at a class boundary
                j = (j + 1) % d
            step = 1 if independent else j + 1
            c[j] -= step
            busy -= step
    return acc, events


# ---------------------------------------------------------------- event-driven (server level)
@compiled(inline="always")
def _heap_push(ht, hid, size, t, ident):
    i = size
    ht[i] = t
    hid[i] = ident
    while i > 0:
        parent = (i - 1) // 2
        if ht[parent] <= ht[i]:
            break
        ht[parent], ht[i] = ht[i], ht[parent]
        hid[parent], hid[i] = hid[i], hid[parent]
        i = parent
    return size + 1


@compiled(inline="always")
def _heap_pop(ht, hid, size):
    t, ident = ht[0], hid[0]
    size -= 1
    ht[0] = ht[size]
    hid[0] = hid[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        smallest = left
        if left + 1 < size and ht[left + 1] < ht[left]:
            smallest = left + 1
        if ht[i] <= ht[smallest]:
            break
        ht[smallest], ht[i] = ht[i], ht[smallest]
        hid[smallest], hid[i] = hid[i], hid[smallest]
        i = smallest
    return t, ident, size


@compiled(inline="always")
def _finish_job(acc, batch, t, arrival, slot, free_slots, n_free):
    """A job completes at t: record its response time if it was measured, free its slot."""
    if batch >= 0 and arrival >= 0:
        acc[batch, A_RESP] += t - arrival
        acc[batch, A_DONE] += 1.0
    free_slots[n_free] = slot
    return n_free + 1


@compiled
def event_kernel(n, k, d, lam_tot, mu, independent, deterministic, warmup_time, n_batches, batch_arrivals, seed):
    """Server-level discrete-event simulation. Returns (acc[n_batches, 8+2d], events).

    Columns as :func:`aggregated_kernel` except that A_P0 and the conditional split columns stay
    0 (this simulator only counts), and A_RESP / A_DONE sum the realised response times and count
    the measured jobs that completed (in the batch where they complete).
    """
    np.random.seed(seed)
    idle = np.ones(n, dtype=np.bool_)
    perm = np.arange(n)
    # job slots: servers held, split J, servers still busy, arrival time
    job_servers = np.empty((n, d), dtype=np.int64)
    job_split = np.zeros(n, dtype=np.int64)
    job_left = np.zeros(n, dtype=np.int64)
    job_arrival = np.zeros(n)
    free_slots = np.arange(n - 1, -1, -1)
    n_free = n
    server_job = np.full(n, -1, dtype=np.int64)
    ht = np.empty(n)
    hid = np.empty(n, dtype=np.int64)
    hsize = 0
    acc = np.zeros((n_batches, N_FIXED + 2 * d))
    t = 0.0
    next_arrival = np.random.exponential(1.0 / lam_tot)
    busy = 0
    jobs = 0
    batch = -1
    arrivals_in_batch = 0
    events = 0
    chosen = np.empty(d, dtype=np.int64)
    while True:
        events += 1
        if hsize > 0 and ht[0] < next_arrival:
            t_next, ident, hsize = _heap_pop(ht, hid, hsize)
        else:
            t_next, ident = next_arrival, -1
        if batch >= 0:
            dt = t_next - t
            acc[batch, A_TIME] += dt
            acc[batch, A_BUSY] += dt * busy
            acc[batch, A_JOBS] += dt * jobs
        t = t_next
        if ident >= 0:  # a departure: a whole job (together) or one server (independent)
            if independent:
                server = ident
                slot = server_job[server]
                idle[server] = True
                server_job[server] = -1
                busy -= 1
                job_left[slot] -= 1
                if job_left[slot] == 0:
                    jobs -= 1
                    n_free = _finish_job(acc, batch, t, job_arrival[slot], slot, free_slots, n_free)
            else:
                slot = ident
                for r in range(job_split[slot]):
                    idle[job_servers[slot, r]] = True
                busy -= job_split[slot]
                jobs -= 1
                n_free = _finish_job(acc, batch, t, job_arrival[slot], slot, free_slots, n_free)
            continue
        # an arrival: sample k servers by partial Fisher–Yates, keep up to d idle ones
        next_arrival = t + np.random.exponential(1.0 / lam_tot)
        found = 0
        for r in range(k):
            pick = r + np.random.randint(0, n - r)
            perm[r], perm[pick] = perm[pick], perm[r]
            if idle[perm[r]] and found < d:
                chosen[found] = perm[r]
                found += 1
        counting = batch >= 0
        if counting:
            acc[batch, A_ARRIVALS] += 1.0
            arrivals_in_batch += 1
        if found == 0:
            if counting:
                acc[batch, A_BLOCKED] += 1.0
        else:
            n_free -= 1
            slot = free_slots[n_free]
            size = (1.0 / mu) if deterministic else np.random.exponential(1.0 / mu)
            job_split[slot] = found
            job_left[slot] = found
            job_arrival[slot] = t if counting else -1.0  # warm-up jobs are not measured
            jobs += 1
            busy += found
            for r in range(found):
                server = chosen[r]
                idle[server] = False
                job_servers[slot, r] = server
                server_job[server] = slot
                if independent:
                    sub = (1.0 / (found * mu)) if deterministic else np.random.exponential(1.0 / (found * mu))
                    hsize = _heap_push(ht, hid, hsize, t + sub, server)
            if not independent:
                hsize = _heap_push(ht, hid, hsize, t + size / found, slot)
            if counting:
                acc[batch, N_FIXED + found - 1] += 1.0
        batch, arrivals_in_batch = next_batch(batch, arrivals_in_batch, t, warmup_time, batch_arrivals)
        if batch == n_batches:
            break
    return acc, events
