"""Compiled (numba) paths of the flow-time algorithms with immediate dispatch and no late
rejection: the whole run of one instance in one call, event driven.

The cost of a run grows with the number of jobs and of processing events, never with
m × horizon: a machine is only touched when a job is dispatched to it or its state is asked
for at an arrival (its processing is advanced lazily to that instant), and once at the end.

Two kernels, each a model of the engine's machines (``docs/models/rejection-model.md`` §1.3:
non-migratory, preemptive, ``speed`` units of work per unit of time) with the dispatch and
rejection rules of the algorithms that use it:

* :func:`fifo_kernel` — every machine runs its jobs in dispatch order. Dispatch by the
  shortest queue (the job in service counted), the least remaining work, or a random one of
  the two shortest queues; rejection on arrival by a queue cap, a work cap (``exceed`` or
  ``reach``) or every k-th job routed to a machine. Used by ``ll-fifo``, ``ll-fifo-drop``,
  ``mft-unit`` (oracle T*), ``drop-every-k-flow`` and ``random-two-flow``.
* :func:`priority_kernel` — every machine runs, preemptively, its unfinished job with the
  smallest key: a static key (a rank computed before the run: EDF, SSF-EDF, FIFO by release)
  or the remaining work (SRPT, ties by job id). Dispatch by the least remaining work as the
  EDF family keeps it (its own bookkeeping, relative tie tolerance) or by IMD's least
  cumulative class volume. Used by ``edf``, ``ssf-edf`` and ``imd``.
* :func:`lwf_kernel` — ``lwf``: the EDF family's dispatch; per machine the largest current
  delay factor (t − r_j)/S_j first, the queue re-sorted at the slots the step path re-sorts it
  (arrivals on a machine that has seen two slacks, its head's completion slot, the first
  crossing of two delay-factor lines), events from a binary heap.

Processing follows the engine's own arithmetic (:meth:`Engine._advance`): a job completes at
an instant t when its remaining work is at most (t − start)·s + 1e-9·max(1, p); work and
completion times are floats with that tolerance, so at a fractional speed 1 + ε both paths
agree to within it (and exactly where the engine asks for the same instants, as it does for
the FIFO rules, which have no slot hook). Trace rows are merged as the engine merges them
(one row per maximal interval of one job on one machine).

Jobs are numbered by arrival position inside a kernel, as the engine numbers them (ties of
SRPT and of the static keys are broken by that number). Each kernel returns, per arrival
position, the machine (−1: rejected on arrival) and the completion instant (NaN: not
completed), and the trace rows (their job column in positions too); ``order[pos]`` is the job. The algorithms' step
paths (``on_arrival``/``on_slot``) are the independent implementations; the conformance tests
(``tests/conformance/test_compiled_paths.py``) check that the two agree.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from schedbench.scheduling.compiled import CompiledRun

__all__ = [
    "run_fifo",
    "run_priority",
    "static_rank",
    "fifo_kernel",
    "priority_kernel",
    "snap_work",
    "SHORTEST_QUEUE",
    "LEAST_WORK",
    "TWO_SHORTEST_RANDOM",
    "LEAST_WORK_EDF",
    "IMD_VOLUME",
    "GIVEN",
    "NO_REJECTION",
    "QUEUE_CAP",
    "WORK_CAP_EXCEED",
    "WORK_CAP_REACH",
    "EVERY_K",
    "STATIC_KEY",
    "SRPT",
]

TOL = 1e-9  # the engine's work tolerance (engine._TOL): work below it counts as done
LEAST_WORK_TIE = 1e-9  # absolute slack of _flow_rules.least_work
EDF_TIE = 1e-9  # relative slack of edf.LeastWork.pick

# dispatch rules
SHORTEST_QUEUE, LEAST_WORK, TWO_SHORTEST_RANDOM, LEAST_WORK_EDF, IMD_VOLUME, GIVEN = 0, 1, 2, 3, 4, 5
# rejection rules (on arrival)
NO_REJECTION, QUEUE_CAP, WORK_CAP_EXCEED, WORK_CAP_REACH, EVERY_K, QUEUE_CAP_AT = 0, 1, 2, 3, 4, 5
# processing orders of the priority kernel
STATIC_KEY, SRPT = 0, 1

_SNAP = 2.0**20  # remaining work is compared on a grid of 2^-20 units (see snap_work)
_SNAP_MAX = 2.0**32


def snap_work(x: float) -> float:
    """Remaining work as SRPT compares it: rounded to the nearest multiple of 2^-20 (below
    2^32 units). At speed 1 + ε a remaining work is an integer minus a multiple of s, so two
    values equal in exact arithmetic can differ in the last bits of their floats; rounding
    makes them the tie they are (then broken by job id) on the step path and here alike."""
    if abs(x) < _SNAP_MAX:
        return round(x * _SNAP) / _SNAP
    return x


@njit(cache=True, inline="always")
def _snap(x):
    if abs(x) < _SNAP_MAX:
        return np.round(x * _SNAP) / _SNAP
    return x


# ---------------------------------------------------------------------- trace rows
@njit(cache=True)
def _grown(ti, tf):
    n = ti.shape[0]
    ti2 = np.empty((2 * n + 16, 2), np.int64)
    tf2 = np.empty((2 * n + 16, 3), np.float64)
    ti2[:n] = ti
    tf2[:n] = tf
    return ti2, tf2


@njit(cache=True, inline="always")
def _row(ti, tf, rows, last_row, i, j, a, b, w):
    """Record work ``w`` of job j on machine i in [a, b]; extends the machine's last row when
    the same job simply continues (as the engine's ``_trace``). Returns (ti, tf, rows)."""
    k = last_row[i]
    if k >= 0 and ti[k, 1] == j and tf[k, 1] == a:
        tf[k, 1] = b
        tf[k, 2] += w
        return ti, tf, rows
    if rows == ti.shape[0]:
        ti, tf = _grown(ti, tf)
    last_row[i] = rows
    ti[rows, 0] = i
    ti[rows, 1] = j
    tf[rows, 0] = a
    tf[rows, 1] = b
    tf[rows, 2] = w
    return ti, tf, rows + 1


@njit(cache=True, inline="always")
def _put(ti, tf, rows, last_row, i, j, a, b, w):
    """:func:`_row` into arrays known to be large enough (the FIFO and priority kernels
    allocate their bound up front); returns the row count."""
    k = last_row[i]
    if k >= 0 and ti[k, 1] == j and tf[k, 1] == a:
        tf[k, 1] = b
        tf[k, 2] += w
        return rows
    if rows >= ti.shape[0]:
        raise RuntimeError("compiled flow-time run: more trace rows than the kernel's bound")
    last_row[i] = rows
    ti[rows, 0] = i
    ti[rows, 1] = j
    tf[rows, 0] = a
    tf[rows, 1] = b
    tf[rows, 2] = w
    return rows + 1


@njit(cache=True)
def _by_machine(ti, tf, rows, m):
    """The first ``rows`` trace rows grouped by machine (a stable counting sort): a machine's
    rows are written in time order, so the result is in (machine, start) order, which the
    validator checks in one pass instead of sorting."""
    count = np.zeros(m + 1, np.int64)
    for r in range(rows):
        count[ti[r, 0] + 1] += 1
    for i in range(m):
        count[i + 1] += count[i]
    gi = np.empty((rows, 2), np.int64)
    gf = np.empty((rows, 3), np.float64)
    for r in range(rows):
        k = count[ti[r, 0]]
        count[ti[r, 0]] = k + 1
        gi[k, 0] = ti[r, 0]
        gi[k, 1] = ti[r, 1]
        gf[k, 0] = tf[r, 0]
        gf[k, 1] = tf[r, 1]
        gf[k, 2] = tf[r, 2]
    return gi, gf


@njit(cache=True, inline="always")
def _edf_pick(a, b, indices, lw_work, lw_stamp, s, t, p):
    """The EDF family's dispatch (edf.LeastWork): the eligible machine ``indices[a:b]`` with the
    least remaining work at t, kept as W_i(t) = max(0, W_i − s·(t − stamp_i)), ties (relative
    1e-9) to the lowest index; adds the job's size p to it and returns it."""
    best = np.inf
    for q in range(a, b):
        c = indices[q]
        w = max(0.0, lw_work[c] - s * (t - lw_stamp[c]))
        if w < best:
            best = w
    i = -1
    for q in range(a, b):
        c = indices[q]
        w = max(0.0, lw_work[c] - s * (t - lw_stamp[c]))
        if w <= best + EDF_TIE * max(1.0, best) and (i < 0 or c < i):
            i = c
    lw_work[i] = max(0.0, lw_work[i] - s * (t - lw_stamp[i])) + p
    lw_stamp[i] = t
    return i


@njit(cache=True, inline="always")
def _fifo_append(i, j, qhead, qtail, nxt, qlen, work_left, rem):
    """Job j joins the end of machine i's queue (Engine._dispatch)."""
    if qhead[i] < 0:
        qhead[i] = j
    else:
        nxt[qtail[i]] = j
    qtail[i] = j
    qlen[i] += 1
    work_left[i] += rem[j]


# ---------------------------------------------------------------------- FIFO machines
@njit(cache=True)
def _advance_fifo(i, t, s, size, rem, completion, nxt, qhead, qlen, t_last, work_left, last_row, ti, tf, rows):
    """Machine i processes its FIFO queue from ``t_last[i]`` to instant t (engine._advance)."""
    cur = t_last[i]
    if t <= cur:
        return rows
    while qhead[i] >= 0 and cur < t:
        j = qhead[i]
        r = rem[j]
        tol = TOL * max(1.0, size[j])
        if r <= (t - cur) * s + tol:
            end = min(cur + r / s, t)
            rows = _put(ti, tf, rows, last_row, i, j, cur, end, r)
            rem[j] = 0.0
            completion[j] = end
            work_left[i] -= r
            qhead[i] = nxt[j]
            qlen[i] -= 1
            cur = end
        else:
            w = (t - cur) * s
            rows = _put(ti, tf, rows, last_row, i, j, cur, t, w)
            rem[j] = r - w
            work_left[i] -= w
            cur = t
            if rem[j] <= tol:  # a float residue: the job is done
                work_left[i] -= rem[j]
                rows = _put(ti, tf, rows, last_row, i, j, t, t, rem[j])
                rem[j] = 0.0
                completion[j] = t
                qhead[i] = nxt[j]
                qlen[i] -= 1
    if qhead[i] < 0:
        work_left[i] = 0.0
    t_last[i] = t
    return rows


@njit(cache=True)
def fifo_kernel(
    release, size, indptr, indices, order, m, speed, dispatch, reject, cap, k, coins, given, given_slot, cap_at
):
    """One run of a FIFO flow-time rule (see the module docstring): returns (machine,
    completion, trace_int (machine, job), trace_float (start, end, work)). With ``dispatch ==
    GIVEN`` the decisions are made already (a held job's machine ``given[pos]`` and slot
    ``given_slot[pos]``, non-decreasing in pos: ``anand-batch``) and only the processing runs.
    ``QUEUE_CAP_AT``: the queue cap of the job at arrival position pos is ``cap_at[pos]``
    (``mft-unit`` with a prefix oracle, whose cap grows during the run)."""
    n = size.shape[0]
    s = float(speed)
    sizef = np.empty(n, np.float64)  # indexed by arrival position, as the engine's job ids
    for p in range(n):
        sizef[p] = size[order[p]]
    rem = sizef.copy()
    completion = np.full(n, np.nan)
    machine = np.full(n, -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    qhead = np.full(m, -1, np.int64)
    qtail = np.full(m, -1, np.int64)
    qlen = np.zeros(m, np.int64)
    t_last = np.zeros(m)
    work_left = np.zeros(m)
    routed = np.zeros(m, np.int64)
    last_row = np.full(m, -1, np.int64)
    ti = np.empty((n + 16, 2), np.int64)  # FIFO: one row per job (a job runs uninterrupted)
    tf = np.empty((n + 16, 3), np.float64)
    rows = 0
    for pos in range(n):
        j = pos
        o = order[pos]
        t = float(release[o])
        a, b = indptr[o], indptr[o + 1]
        if dispatch == GIVEN:
            t = float(given_slot[pos])
        else:
            for q in range(a, b):  # the engine brings every machine it is asked about up to t
                rows = _advance_fifo(
                    indices[q],
                    t,
                    s,
                    sizef,
                    rem,
                    completion,
                    nxt,
                    qhead,
                    qlen,
                    t_last,
                    work_left,
                    last_row,
                    ti,
                    tf,
                    rows,
                )
        if dispatch == GIVEN:
            i = given[pos]
            rows = _advance_fifo(
                i, t, s, sizef, rem, completion, nxt, qhead, qlen, t_last, work_left, last_row, ti, tf, rows
            )
        elif dispatch == SHORTEST_QUEUE:  # first of (queue length, position) in the eligible list
            i = indices[a]
            for q in range(a + 1, b):
                if qlen[indices[q]] < qlen[i]:
                    i = indices[q]
        elif dispatch == LEAST_WORK:  # first with work < best − 1e-9 (_flow_rules.least_work)
            i = indices[a]
            best = max(0.0, work_left[i])
            for q in range(a + 1, b):
                w = max(0.0, work_left[indices[q]])
                if w < best - LEAST_WORK_TIE:
                    i = indices[q]
                    best = w
        else:  # TWO_SHORTEST_RANDOM: the two smallest (queue length, index), the coin picks
            x, y = -1, -1
            for q in range(a, b):
                c = indices[q]
                if x < 0 or qlen[c] < qlen[x] or (qlen[c] == qlen[x] and c < x):
                    y = x
                    x = c
                elif y < 0 or qlen[c] < qlen[y] or (qlen[c] == qlen[y] and c < y):
                    y = c
            i = x if (y < 0 or coins[pos] < 0.5) else y
        rejected = False
        if reject == QUEUE_CAP:
            rejected = qlen[i] >= cap
        elif reject == QUEUE_CAP_AT:
            rejected = qlen[i] >= cap_at[pos]
        elif reject == WORK_CAP_EXCEED:
            rejected = max(0.0, work_left[i]) + sizef[j] > cap + 1e-9
        elif reject == WORK_CAP_REACH:
            rejected = max(0.0, work_left[i]) >= cap - 1e-9
        elif reject == EVERY_K:
            routed[i] += 1
            rejected = routed[i] % k == 0
        if rejected:
            continue
        machine[j] = i
        _fifo_append(i, j, qhead, qtail, nxt, qlen, work_left, rem)
    for i in range(m):  # Engine.finish: run every machine empty
        rows = _advance_fifo(
            i,
            t_last[i] + work_left[i] / s + 1.0,
            s,
            sizef,
            rem,
            completion,
            nxt,
            qhead,
            qlen,
            t_last,
            work_left,
            last_row,
            ti,
            tf,
            rows,
        )
    gi, gf = _by_machine(ti, tf, rows, m)
    return machine, completion, gi, gf


# ---------------------------------------------------------------------- priority machines
@njit(cache=True, inline="always")
def _less(a, b, key):
    return key[a] < key[b] or (key[a] == key[b] and a < b)


@njit(cache=True)
def _meld(a, b, key, left, right):
    """Top-down skew-heap meld of the heaps rooted at a and b (−1: empty); returns the root."""
    if a < 0:
        return b
    if b < 0:
        return a
    if _less(b, a, key):
        a, b = b, a
    root = a
    while True:
        r = right[a]
        right[a] = left[a]
        if r < 0:
            left[a] = b
            break
        if _less(b, r, key):
            r, b = b, r
        left[a] = r
        a = r
    return root


@njit(cache=True)
def _advance_priority(
    i, t, s, size, rem, completion, key, left, right, root, run, t_last, work_left, last_row, ti, tf, rows
):
    """Machine i processes from ``t_last[i]`` to instant t: the running job, then the smallest
    key of its heap at each completion (engine._advance on a queue kept sorted by key)."""
    cur = t_last[i]
    if t <= cur:
        return rows
    while cur < t:
        j = run[i]
        if j < 0:
            j = root[i]
            if j < 0:
                break
            root[i] = _meld(left[j], right[j], key, left, right)
            left[j] = -1
            right[j] = -1
            run[i] = j
        r = rem[j]
        tol = TOL * max(1.0, size[j])
        if r <= (t - cur) * s + tol:
            end = min(cur + r / s, t)
            rows = _put(ti, tf, rows, last_row, i, j, cur, end, r)
            rem[j] = 0.0
            completion[j] = end
            work_left[i] -= r
            run[i] = -1
            cur = end
        else:
            w = (t - cur) * s
            rows = _put(ti, tf, rows, last_row, i, j, cur, t, w)
            rem[j] = r - w
            work_left[i] -= w
            cur = t
            if rem[j] <= tol:
                work_left[i] -= rem[j]
                rows = _put(ti, tf, rows, last_row, i, j, t, t, rem[j])
                rem[j] = 0.0
                completion[j] = t
                run[i] = -1
    if run[i] < 0 and root[i] < 0:
        work_left[i] = 0.0
    t_last[i] = t
    return rows


@njit(cache=True)
def priority_kernel(release, size, indptr, indices, order, m, speed, dispatch, discipline, rank):
    """One run of a preemptive per-machine priority rule (see the module docstring):
    ``discipline`` STATIC_KEY (smallest ``rank[pos]`` first) or SRPT (least remaining work,
    ties by arrival position). Returns (machine, completion, trace_int, trace_float)."""
    n = size.shape[0]
    s = float(speed)
    sizef = np.empty(n, np.float64)  # indexed by arrival position, as the engine's job ids
    for p in range(n):
        sizef[p] = size[order[p]]
    rem = sizef.copy()
    completion = np.full(n, np.nan)
    machine = np.full(n, -1, np.int64)
    key = rank.astype(np.float64) if discipline == STATIC_KEY else sizef.copy()
    left = np.full(n, -1, np.int64)
    right = np.full(n, -1, np.int64)
    root = np.full(m, -1, np.int64)
    run = np.full(m, -1, np.int64)
    t_last = np.zeros(m)
    work_left = np.zeros(m)
    last_row = np.full(m, -1, np.int64)
    # the dispatch rules' own bookkeeping
    lw_work = np.zeros(m)  # edf.LeastWork: work and the slot it was last updated
    lw_stamp = np.zeros(m)
    volume = np.zeros((m, 64), np.int64) if dispatch == IMD_VOLUME else np.zeros((1, 1), np.int64)
    ti = np.empty((2 * n + 16, 2), np.int64)  # a row per start: ≤ n starts + ≤ n resumptions
    tf = np.empty((2 * n + 16, 3), np.float64)  # (an arrival preempts at most one job)
    rows = 0
    for pos in range(n):
        j = pos
        o = order[pos]
        t = float(release[o])
        a, b = indptr[o], indptr[o + 1]
        if dispatch == LEAST_WORK_EDF:
            i = _edf_pick(a, b, indices, lw_work, lw_stamp, s, t, sizef[j])
        else:  # IMD_VOLUME: least cumulative volume of class ⌊log₂ p⌋, ties to the lowest index
            cls = 0
            while (2 << cls) <= size[o]:
                cls += 1
            i = -1
            for q in range(a, b):
                c = indices[q]
                if i < 0 or volume[c, cls] < volume[i, cls] or (volume[c, cls] == volume[i, cls] and c < i):
                    i = c
            volume[i, cls] += size[o]
        rows = _advance_priority(
            i, t, s, sizef, rem, completion, key, left, right, root, run, t_last, work_left, last_row, ti, tf, rows
        )
        machine[j] = i
        work_left[i] += rem[j]
        h = run[i]
        if h >= 0:  # the running job goes back to the heap if the new one comes first
            if discipline == SRPT:
                key[h] = _snap(rem[h])
            if _less(j, h, key):
                run[i] = -1
                root[i] = _meld(root[i], h, key, left, right)
        root[i] = _meld(root[i], j, key, left, right)
    for i in range(m):
        rows = _advance_priority(
            i,
            t_last[i] + work_left[i] / s + 1.0,
            s,
            sizef,
            rem,
            completion,
            key,
            left,
            right,
            root,
            run,
            t_last,
            work_left,
            last_row,
            ti,
            tf,
            rows,
        )
    gi, gf = _by_machine(ti, tf, rows, m)
    return machine, completion, gi, gf


# ---------------------------------------------------------------------- binary heap of events
# Rows (slot, x, y) of an int64 array, smallest slot on top; the order among equal slots is
# irrelevant to every user (the events of one slot are collected into a set of machines, and
# the timeouts of one slot commute), so only the slot is compared.
@njit(cache=True, inline="always")
def _heap_push(h, size, a, b, c):
    """Push (a, b, c) keyed by a; returns the heap (grown if full) and its size."""
    if size == h.shape[0]:
        g = np.empty((2 * size + 16, 3), np.int64)
        g[:size] = h[:size]
        h = g
    k = size
    while k > 0:
        p = (k - 1) >> 1
        if h[p, 0] <= a:
            break
        h[k, 0] = h[p, 0]
        h[k, 1] = h[p, 1]
        h[k, 2] = h[p, 2]
        k = p
    h[k, 0] = a
    h[k, 1] = b
    h[k, 2] = c
    return h, size + 1


@njit(cache=True, inline="always")
def _heap_pop(h, size):
    """Remove the top row (read it at h[0] first); returns the new size."""
    size -= 1
    if size == 0:
        return 0
    x0 = h[size, 0]
    x1 = h[size, 1]
    x2 = h[size, 2]
    k = 0
    while True:
        a = 2 * k + 1
        if a >= size:
            break
        b = a + 1
        c = b if (b < size and h[b, 0] < h[a, 0]) else a
        if h[c, 0] >= x0:
            break
        h[k, 0] = h[c, 0]
        h[k, 1] = h[c, 1]
        h[k, 2] = h[c, 2]
        k = c
    h[k, 0] = x0
    h[k, 1] = x1
    h[k, 2] = x2
    return size


# ---------------------------------------------------------------------- LWF with mixed slacks
@njit(cache=True)
def _lwf_resort(i, t, s, slack, release, rem, qhead, qtail, nxt, qlen, buf, keys):
    """Re-sort machine i's queue at slot t by (−(t − r_j)/S_j, r_j, position), largest delay
    factor first (lwf.Lwf._resort); the queue is a linked list in processing order. Returns
    the slot of the next re-sort, or −1 when the step path would schedule none."""
    q = qlen[i]
    k = 0
    j = qhead[i]
    while j >= 0:
        buf[k] = j
        k += 1
        j = nxt[j]
    part = np.sort(buf[:q])  # by position, which orders (r, position) too
    for a in range(q):
        keys[a] = -(t - release[part[a]]) / slack[part[a]]
    by = np.argsort(keys[:q], kind="mergesort")  # stable: ties keep (r, position)
    for a in range(q):
        buf[a] = part[by[a]]
    qhead[i] = buf[0]
    for a in range(q - 1):
        nxt[buf[a]] = buf[a + 1]
    nxt[buf[q - 1]] = -1
    qtail[i] = buf[q - 1]
    h = buf[0]
    nx = np.floor(t + rem[h] / s + 1e-9)
    for a in range(1, q):
        j = buf[a]
        if slack[j] < slack[h]:  # j's delay factor grows faster: the lines cross at t*
            cross = (release[j] / slack[j] - release[h] / slack[h]) / (1.0 / slack[j] - 1.0 / slack[h])
            c = np.ceil(cross - 1e-9)
            if c < nx:
                nx = c
    return max(np.int64(nx), np.int64(t) + 1)


@njit(cache=True)
def lwf_kernel(release, size, indptr, indices, order, m, speed, slack):
    """One run of ``lwf`` with per-position slacks S (the EDF family's least-work dispatch; per
    machine, the largest current delay factor first, re-sorted where the step path re-sorts:
    at arrivals on a machine that has seen two slacks, in the slot its head completes, and at
    the first crossing of two delay-factor lines). Returns (machine, completion, trace_int,
    trace_float)."""
    n = size.shape[0]
    s = float(speed)
    sizef = np.empty(n, np.float64)
    relf = np.empty(n, np.float64)
    for p in range(n):
        sizef[p] = size[order[p]]
        relf[p] = release[order[p]]
    rem = sizef.copy()
    completion = np.full(n, np.nan)
    machine = np.full(n, -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    qhead = np.full(m, -1, np.int64)
    qtail = np.full(m, -1, np.int64)
    qlen = np.zeros(m, np.int64)
    t_last = np.zeros(m)
    work_left = np.zeros(m)
    last_row = np.full(m, -1, np.int64)
    lw_work = np.zeros(m)
    lw_stamp = np.zeros(m)
    one = np.full(m, np.nan)  # the one slack of every job sent to i (nan: none yet, or mixed)
    seen = np.zeros(m, np.bool_)
    mixed = np.zeros(m, np.bool_)
    version = np.zeros(m, np.int64)
    touched = np.zeros(m, np.bool_)
    touched_list = np.empty(m, np.int64)
    ev = np.empty((16, 3), np.int64)  # (slot, machine, version)
    nev = 0
    buf = np.empty(n, np.int64)
    keys = np.empty(n, np.float64)
    ti = np.empty((2 * n + 16, 2), np.int64)  # grown when needed (a re-sort may preempt)
    tf = np.empty((2 * n + 16, 3), np.float64)
    rows = 0
    pos = 0
    while pos < n or nev > 0:
        while nev > 0 and ev[0, 2] != version[ev[0, 1]]:
            nev = _heap_pop(ev, nev)
        t_next = np.int64(2**62)
        if pos < n:
            t_next = release[order[pos]]
        if nev > 0 and ev[0, 0] < t_next:
            t_next = ev[0, 0]
        if t_next == np.int64(2**62):
            break
        t = t_next
        tf_ = float(t)
        nt = 0
        while pos < n and release[order[pos]] == t:
            j = pos
            pos += 1
            o = order[j]
            i = _edf_pick(indptr[o], indptr[o + 1], indices, lw_work, lw_stamp, s, tf_, sizef[j])
            if not seen[i]:
                seen[i] = True
                one[i] = slack[j]
            elif mixed[i] or one[i] != slack[j]:
                mixed[i] = True
                if not touched[i]:
                    touched[i] = True
                    touched_list[nt] = i
                    nt += 1
            if rows + qlen[i] + 2 > ti.shape[0]:
                ti, tf = _grown(ti, tf)
            rows = _advance_fifo(
                i, tf_, s, sizef, rem, completion, nxt, qhead, qlen, t_last, work_left, last_row, ti, tf, rows
            )
            machine[j] = i
            _fifo_append(i, j, qhead, qtail, nxt, qlen, work_left, rem)
        while nev > 0 and ev[0, 0] <= t:
            i, v = ev[0, 1], ev[0, 2]
            nev = _heap_pop(ev, nev)
            if v == version[i] and not touched[i]:
                touched[i] = True
                touched_list[nt] = i
                nt += 1
        for a in range(nt):
            i = touched_list[a]
            touched[i] = False
            if rows + qlen[i] + 2 > ti.shape[0]:
                ti, tf = _grown(ti, tf)
            rows = _advance_fifo(
                i, tf_, s, sizef, rem, completion, nxt, qhead, qlen, t_last, work_left, last_row, ti, tf, rows
            )
            if qlen[i] <= 1:
                continue  # nothing to order (the step path schedules no re-sort either)
            slot = _lwf_resort(i, tf_, s, slack, relf, rem, qhead, qtail, nxt, qlen, buf, keys)
            if mixed[i]:
                version[i] += 1
                ev, nev = _heap_push(ev, nev, slot, i, version[i])
    for i in range(m):
        if rows + qlen[i] + 2 > ti.shape[0]:
            ti, tf = _grown(ti, tf)
        rows = _advance_fifo(
            i,
            t_last[i] + work_left[i] / s + 1.0,
            s,
            sizef,
            rem,
            completion,
            nxt,
            qhead,
            qlen,
            t_last,
            work_left,
            last_row,
            ti,
            tf,
            rows,
        )
    gi, gf = _by_machine(ti, tf, rows, m)
    return machine, completion, gi, gf


# ---------------------------------------------------------------------- callers
def run_fifo(
    inst,
    order,
    speed: float,
    dispatch: int,
    reject: int = NO_REJECTION,
    cap: float = 0.0,
    k: int = 1,
    coins=None,
    given=None,
    given_slot=None,
    cap_at=None,
) -> CompiledRun:
    """:func:`fifo_kernel` on ``inst`` (jobs in arrival ``order``) as a :class:`CompiledRun`
    (``given``/``given_slot``: the machine and dispatch slot of each position for ``GIVEN``,
    then the run's ``dispatch_slot``)."""
    coins = np.zeros(0) if coins is None else np.asarray(coins, dtype=np.float64)
    empty = np.zeros(0, np.int64)
    g = empty if given is None else np.asarray(given, dtype=np.int64)
    gs = empty if given_slot is None else np.asarray(given_slot, dtype=np.int64)
    machine, completion, ti, tf = fifo_kernel(
        inst.release,
        inst.size,
        inst.indptr,
        inst.indices,
        order,
        inst.m,
        float(speed),
        dispatch,
        reject,
        float(cap),
        int(k),
        coins,
        g,
        gs,
        np.zeros(0) if cap_at is None else np.asarray(cap_at, dtype=np.float64),
    )
    return CompiledRun(machine, completion, ti, tf, dispatch_slot=None if given_slot is None else gs)


def run_priority(inst, order, speed: float, dispatch: int, discipline: int, rank=None) -> CompiledRun:
    """:func:`priority_kernel` on ``inst``; ``rank[pos]``: the static key of each arrival position."""
    rank = np.zeros(inst.n, np.int64) if rank is None else np.asarray(rank, dtype=np.int64)
    machine, completion, ti, tf = priority_kernel(
        inst.release, inst.size, inst.indptr, inst.indices, order, inst.m, float(speed), dispatch, discipline, rank
    )
    return CompiledRun(machine, completion, ti, tf)


def static_rank(*keys: np.ndarray) -> np.ndarray:
    """The rank of each arrival position under the lexicographic ``keys`` (first key most
    significant), ties by position: smallest first."""
    n = keys[0].shape[0]
    by = np.lexsort((np.arange(n),) + tuple(reversed(keys)))
    rank = np.empty(n, np.int64)
    rank[by] = np.arange(n)
    return rank


def run_lwf(inst, order, speed: float, slack: np.ndarray) -> CompiledRun:
    """:func:`lwf_kernel` on ``inst``; ``slack[pos]``: S of each arrival position."""
    machine, completion, ti, tf = lwf_kernel(
        inst.release, inst.size, inst.indptr, inst.indices, order, inst.m, float(speed), np.asarray(slack, np.float64)
    )
    return CompiledRun(machine, completion, ti, tf)
