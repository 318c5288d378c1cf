"""Compiled path of the class-queue algorithms (``docs/models/rejection-model.md`` §4.1–4.3,
§5, §7 B5): ``wmft-A``, ``class-ll-srpt``, ``wmft-B`` and ``gwmft``, every parameter.

:func:`class_kernel` is the whole run of one instance in one call. It simulates algorithm A
exactly as :class:`~schedbench.scheduling.algorithms._classes.ClassQueues` does (per-machine
class queues, own-class least-load dispatch, the queue limit, the class rule load·2^b/2^a
re-decided at arrivals, completions and priority crossings; or SRPT across the machine's jobs
for ``class-ll-srpt``, as ``SrptClassQueues``), and, for B and B_gen, B on top of it as
:class:`~schedbench.scheduling.algorithms.wmft_b.WmftB` does (density override by D, the
timeout c·T/w, the densest alive job when A's job is not alive in B; B_gen's "no hopeless
preemption" variant; timeouts recomputed when T grows under ``prefix-lb``).

Event driven like the step path: the slots at which anything is decided are the arrival slots
and the events A and B schedule (a completion, a class crossing, a timeout), taken in time
order from calendars of machines and queues (or a heap) of timeouts; nothing is done in
between, so the cost grows with jobs and events, not with m × horizon. The rejection model
runs at speed 1 with integer sizes, so every time is an integer slot and every quantity is
exact (the class priorities are integers times powers of two). Within a slot the order is the
step path's: the arrivals of the slot in arrival order, then A's re-decisions, then B's
completions and timeouts, then B's choices (the machines of one step in any order: each
decision is the machine's own). The helpers of the loop are inlined into it
(``inline="always"``): a call would pass every array argument as its whole struct on the stack.

The trace is the processing of the algorithm the engine runs (A's for ``wmft-A`` and
``class-ll-srpt``, B's for ``wmft-B`` and ``gwmft``), one row per maximal interval of one job
on one machine. Jobs are numbered by arrival position (the engine's ids, which break the
ties). ``tests/conformance/test_compiled_paths.py`` checks the kernel against the step path.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.scheduling.algorithms._oracles import pow2_at_least
from schedbench.scheduling.compiled import CompiledRun
from schedbench.scheduling.machines import by_machine, put_row

__all__ = ["class_kernel", "run_class_rule", "MAX_CLASS_CELLS"]

#: Largest m × (number of job classes) the compiled path allocates per-machine class tables
#: for (three int64 tables: about 1.2 GB at this bound); beyond it the run takes the step path.
MAX_CLASS_CELLS = 50_000_000

#: B's timeouts (T fixed) go in one FIFO queue per distinct flow weight when there are at most
#: this many weights (each slot looks at every queue's front), else in an indexed heap.
MAX_TIMEOUT_QUEUES = 64


# ---------------------------------------------------------------------- skew heaps of jobs, 3 keys
@compiled(inline="always")
def _less3(x, y, k1, k2, k3):
    if k1[x] != k1[y]:
        return k1[x] < k1[y]
    if k2[x] != k2[y]:
        return k2[x] < k2[y]
    return k3[x] < k3[y]


@compiled(inline="always")
def _meld3(a, b, k1, k2, k3, left, right):
    """Top-down skew-heap meld (−1: empty heap); the smallest (k1, k2, k3) at the root."""
    if a < 0:
        return b
    if b < 0:
        return a
    if _less3(b, a, k1, k2, k3):
        a, b = b, a
    root = a
    while True:
        r = right[a]
        right[a] = left[a]
        if r < 0:
            left[a] = b
            break
        if _less3(b, r, k1, k2, k3):
            r, b = b, r
        left[a] = r
        a = r
    return root


@compiled(inline="always")
def _pop3(root, k1, k2, k3, left, right):
    """The heap without its root (returns the new root); the old root's links are cleared."""
    new = _meld3(left[root], right[root], k1, k2, k3, left, right)
    left[root] = -1
    right[root] = -1
    return new


# ---------------------------------------------------------------------- indexed heap of timeouts
# B's timeouts of the jobs still alive, smallest slot on top; a job that completes leaves at
# once (the step path skips it when its slot comes: the same decisions, a heap of the alive
# jobs only instead of every job ever accepted).
@compiled(inline="always")
def _ih_up(k, key, job, pos):
    while k > 0:
        p = (k - 1) >> 1
        if key[p] <= key[k]:
            break
        key[p], key[k] = key[k], key[p]
        job[p], job[k] = job[k], job[p]
        pos[job[p]] = p
        pos[job[k]] = k
        k = p


@compiled(inline="always")
def _ih_down(k, size, key, job, pos):
    while True:
        a = 2 * k + 1
        if a >= size:
            break
        c = a + 1 if (a + 1 < size and key[a + 1] < key[a]) else a
        if key[c] >= key[k]:
            break
        key[c], key[k] = key[k], key[c]
        job[c], job[k] = job[k], job[c]
        pos[job[c]] = c
        pos[job[k]] = k
        k = c


@compiled(_nrt=False)
def _ih_push(j, slot, size, key, job, pos):
    key[size] = slot
    job[size] = j
    pos[j] = size
    _ih_up(size, key, job, pos)
    return size + 1


@compiled(_nrt=False)
def _ih_remove(j, size, key, job, pos):
    """Remove job j if it is in the heap; returns the new size."""
    k = pos[j]
    if k < 0:
        return size
    pos[j] = -1
    size -= 1
    if k == size:
        return size
    x = job[size]  # the last entry fills the hole, then finds its place
    key[k] = key[size]
    job[k] = x
    pos[x] = k
    _ih_up(k, key, job, pos)
    _ih_down(pos[x], size, key, job, pos)
    return size


@compiled(_nrt=False)
def _ih_set(j, slot, size, key, job, pos):
    """Set job (or machine) j's slot: insert it, or move its entry; returns the new size."""
    k = pos[j]
    if k < 0:
        return _ih_push(j, slot, size, key, job, pos)
    old = key[k]
    key[k] = slot
    if slot < old:
        _ih_up(k, key, job, pos)
    elif slot > old:
        _ih_down(k, size, key, job, pos)
    return size


# ---------------------------------------------------------------------- calendars of machines
# A's and B's next event per machine (at most one each), in a ring of W one-slot buckets
# (doubly linked lists of machines) for the events less than W slots ahead, and in an indexed
# heap beyond. Every event is taken at its slot, so the ring holds slots of [t, t + W) only:
# a bucket holds one slot. The order of the machines within a slot is not the heap's; no
# decision depends on it (A's and B's decisions of one slot are per machine, and a machine's
# trace rows are in time order whatever the order of the machines).
@compiled(inline="always")
def _cal_del(i, cslot, cnx, cpv, chead, mask, key, mach, hpos, cnt):
    """Remove machine i's event, if any."""
    s = cslot[i]
    if s < 0:
        return
    cslot[i] = -1
    if hpos[i] >= 0:
        cnt[1] = _ih_remove(i, cnt[1], key, mach, hpos)
        return
    p = cpv[i]
    x = cnx[i]
    if p >= 0:
        cnx[p] = x
    else:
        chead[s & mask] = x
    if x >= 0:
        cpv[x] = p
    cnt[0] -= 1


@compiled(inline="always")
def _cal_set(i, s, t, cslot, cnx, cpv, chead, mask, key, mach, hpos, cnt):
    """Machine i's event at slot s > t (set during slot t), replacing the one it had."""
    _cal_del(i, cslot, cnx, cpv, chead, mask, key, mach, hpos, cnt)
    cslot[i] = s
    if s - t <= mask:
        b = s & mask
        h = chead[b]
        cnx[i] = h
        cpv[i] = -1
        if h >= 0:
            cpv[h] = i
        chead[b] = i
        cnt[0] += 1
    else:
        cnt[1] = _ih_push(i, s, cnt[1], key, mach, hpos)


@compiled(inline="always")
def _cal_remove(i, cslot, cnx, cpv, chead, mask, key, mach, hpos, cnt):
    _cal_del(i, cslot, cnx, cpv, chead, mask, key, mach, hpos, cnt)


@compiled(inline="always")
def _cal_next(t, tprev, chead, mask, key, cnt):
    """The smaller of t and the calendar's first slot (the ring holds slots of (tprev, tprev + W))."""
    if cnt[1] > 0 and key[0] < t:
        t = key[0]
    if cnt[0] > 0:
        s = tprev + 1
        e = min(t, tprev + mask + 1)
        while s < e:
            if chead[s & mask] >= 0:
                return s
            s += 1
    return t


@compiled(inline="always")
def _cal_take(t, cslot, cnx, chead, mask, key, mach, hpos, cnt, flag, lst, nl):
    """Takes the machines whose event is at slot t out of the calendar and appends those not
    yet flagged to lst (flagging them); returns the new length of lst."""
    b = t & mask
    i = chead[b]
    chead[b] = -1
    while i >= 0:
        x = cnx[i]
        cslot[i] = -1
        cnt[0] -= 1
        if not flag[i]:
            flag[i] = True
            lst[nl] = i
            nl += 1
        i = x
    while cnt[1] > 0 and key[0] <= t:
        i = mach[0]
        cnt[1] = _ih_remove(i, cnt[1], key, mach, hpos)
        cslot[i] = -1
        if not flag[i]:
            flag[i] = True
            lst[nl] = i
            nl += 1
    return nl


# ---------------------------------------------------------------------- arrivals
@compiled(inline="always")
def _a_pick(o, c, t, indptr, indices, loads, cur, since):
    """A's dispatch (ClassQueues.least_loaded): the eligible machine with the least own-class
    load at t (ties: lowest index, eligible sets ascending) and that load."""
    best = -1
    best_load = np.int64(0)
    for q in range(indptr[o], indptr[o + 1]):
        i = indices[q]
        L = loads[i, c]
        if L != 0 and cur[i] == c:
            L -= t - since[i]
        if best < 0 or L < best_load:
            best = i
            best_load = L
            if L == 0:
                break
    return best, best_load


@compiled(inline="always")
def _a_add(
    i,
    j,
    t,
    c,
    p,
    srpt,
    cls,
    loads,
    qhead,
    qtail,
    nxt,
    rem,
    cur,
    since,
    head,
    nonempty,
    mode_b,
    last_row,
    ti,
    tf,
    rows,
    completion,
    sroot,
    release,
    posk,
    sleft,
    sright,
):
    """ClassQueues.add: advance machine i to t, then queue job j (class c, size p) on it."""
    rows = _a_advance(
        i, t, srpt, cls, loads, qhead, nxt, rem, cur, since, head, nonempty, mode_b, last_row, ti, tf, rows, completion
    )
    if loads[i, c] == 0:
        nonempty[i] += 1
    loads[i, c] += p
    if srpt:
        sroot[i] = _meld3(sroot[i], j, rem, release, posk, sleft, sright)
    else:
        if qhead[i, c] < 0:
            qhead[i, c] = j
        else:
            nxt[qtail[i, c]] = j
        qtail[i, c] = j
    return rows


@compiled(inline="always")
def _b_add(j, i, T, cval, release, wflow, alive, bmach, deadline, droot, neg_d, posk, dleft, dright):
    """B takes job j on machine i (alive, densest-first heap); returns c·T/w of its timeout."""
    alive[j] = True
    bmach[j] = i
    x = cval * T / wflow[j]
    deadline[j] = release[j] + x
    droot[i] = _meld3(droot[i], j, neg_d, deadline, posk, dleft, dright)
    return x


# ---------------------------------------------------------------------- B's choice
@compiled(inline="always")
def _b_decide(
    i,
    t,
    T,
    cval,
    no_hopeless,
    dshift,
    size,
    release,
    wflow,
    dexp,
    head,
    brun,
    brem,
    alive,
    droot,
    neg_d,
    deadline,
    posk,
    dleft,
    dright,
    kept,
):
    """B's re-decision on machine i at slot t, after :func:`_b_sync` (WmftB.b_choose /
    gwmft.keep_running): sets brun[i]; returns 1 if gwmft kept a hopeless job running, else 0."""
    r = droot[i]
    while r >= 0 and not alive[r]:
        r = _pop3(r, neg_d, deadline, posk, dleft, dright)
    droot[i] = r
    top = r
    ja = head[i]
    if ja >= 0 and top >= 0 and dexp[top] < dexp[ja] + dshift and alive[ja]:
        pick = ja
    else:
        pick = top
    hk = 0
    if no_hopeless:  # gwmft.keep_running
        run = brun[i]
        kept[i] = False
        if not (run < 0 or pick == run or pick < 0 or brem[run] == size[run]):
            if t + brem[pick] > _timeout(release[pick], cval * T / wflow[pick]):
                hk = 1
                kept[i] = True
                pick = run
    brun[i] = pick
    return hk


# ---------------------------------------------------------------------- the kernel
#: The run's scalar state between calls of :func:`_simulate` (slots of its ``st`` array).
_POS, _TPREV, _NTOS, _ROWS, _AREJ, _TIMEOUTS, _KEPT = 0, 1, 2, 3, 4, 5, 6


@compiled
def class_kernel(
    release,  # per arrival position
    size,
    indptr,  # eligibility CSR, by job
    indices,
    order,  # order[pos] = job
    m,
    n_classes,
    cls,  # class index per position
    pw,  # per class: 2^{b−a}
    tie,  # per class: rank of the tie key (b, −a, e); larger wins
    limit,  # per position: A's queue limit α·T/2^b at its arrival
    T_at,  # per position: T after its arrival (oracle T* or the prefix bound)
    wflow,  # per position: the flow weight w^f
    dexp,  # per position: B's density exponent
    srpt,  # A processed SRPT (class-ll-srpt)
    mode_b,  # B on top of A (wmft-B, gwmft)
    cval,  # B's timeout factor c
    dshift,  # B: density ≥ D·density' ⟺ exponent ≥ exponent' + dshift
    no_hopeless,  # gwmft's no_hopeless_preemption
    prefix,  # T grows (oracle prefix-lb): timeouts are re-checked
    tgrp,  # per position: the index of its flow weight among the distinct ones (B, T fixed)
    n_tgrp,  # number of distinct flow weights (0: the timeouts in an indexed heap)
    span,  # ring size of the event calendars (a power of two)
):
    """Allocates the run's state and calls :func:`_simulate` until it has run every slot (it
    returns early, at a slot boundary, when the trace arrays need room: they grow here)."""
    n = size.shape[0]
    # ---- A's state
    loads = np.zeros((m, n_classes), np.int64)
    qhead = np.full((m, n_classes), -1, np.int64)
    qtail = np.full((m, n_classes), -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    rem = size.copy()
    cur = np.full(m, -1, np.int64)  # class A processes on each machine
    since = np.zeros(m, np.int64)
    head = np.full(m, -1, np.int64)
    nonempty = np.zeros(m, np.int64)
    sroot = np.full(m, -1, np.int64)  # SRPT: waiting jobs per machine, (rem, release, position)
    sleft = np.full(n if srpt else 1, -1, np.int64)
    sright = np.full(n if srpt else 1, -1, np.int64)
    posk = np.arange(n)
    # A's next event per machine (a completion or a class crossing; at most one per machine)
    # and B's (a completion): two calendars of machines; slots of their events, ring links
    # (next, previous, per machine), ring bucket heads, overflow heap (key, machine,
    # position), sizes (ring, heap)
    cal_i = np.full((2, 3, m), -1, np.int64)
    cal_h = np.full((2, span), -1, np.int64)
    cal_k = np.empty((2, 2, m), np.int64)
    cal_p = np.full((2, m), -1, np.int64)
    cal_n = np.zeros((2, 2), np.int64)
    dirty = np.zeros(m, np.bool_)
    dirty_list = np.empty(m, np.int64)
    # ---- B's state
    nb = n if mode_b else 1
    alive = np.zeros(nb, np.bool_)
    bmach = np.full(nb, -1, np.int64)
    brem = size.copy()
    neg_d = -dexp
    deadline = np.zeros(nb, np.float64)
    droot = np.full(m, -1, np.int64)
    dleft = np.full(nb, -1, np.int64)
    dright = np.full(nb, -1, np.int64)
    brun = np.full(m, -1, np.int64)
    bsince = np.zeros(m, np.int64)
    nh = nb if n_tgrp == 0 else 1
    to_key = np.empty(nh, np.int64)  # timeouts of the alive jobs (indexed heap; T grows)
    to_job = np.empty(nh, np.int64)
    to_pos = np.full(nh, -1, np.int64)
    # T fixed: a job's timeout is its release plus an offset of its flow weight, so the
    # timeouts of one weight come in arrival order: a FIFO queue per weight (linked by
    # position), its completed jobs left in it and skipped when they reach its front
    tq_next = np.full(nb if n_tgrp > 0 else 1, -1, np.int64)
    tq_head = np.full(n_tgrp, -1, np.int64)
    tq_tail = np.full(n_tgrp, -1, np.int64)
    tq_off = np.zeros(n_tgrp, np.int64)
    if n_tgrp > 0:
        T0 = T_at[0] if n else 1.0
        for j in range(n):
            tq_off[tgrp[j]] = _timeout(0, cval * T0 / wflow[j])
    bd = np.zeros(m, np.bool_)
    bd_list = np.empty(m, np.int64)
    kept = np.zeros(m, np.bool_)
    # ---- outcome
    machine = np.full(n, -1, np.int64)
    completion = np.full(n, np.nan)
    late = np.full(n, -1, np.int64)
    last_row = np.full(m, -1, np.int64)
    # the trace: room for 4 rows a job (A processes about 3 a job on sized jobs; pages not
    # written are never touched), grown only beyond
    cap = 4 * n + 3 * m + 16
    ti = np.empty((cap, 2), np.int64)
    tf = np.empty((cap, 3), np.float64)
    st = np.zeros(7, np.int64)
    st[_TPREV] = -1
    Tv = np.full(1, T_at[0] if n else 1.0)
    while True:
        need = _simulate(
            release,
            size,
            indptr,
            indices,
            order,
            m,
            n_classes,
            cls,
            pw,
            tie,
            limit,
            T_at,
            wflow,
            dexp,
            srpt,
            mode_b,
            cval,
            dshift,
            no_hopeless,
            prefix,
            loads,
            qhead,
            qtail,
            nxt,
            rem,
            cur,
            since,
            head,
            nonempty,
            sroot,
            sleft,
            sright,
            posk,
            cal_i[0, 0],
            cal_i[0, 1],
            cal_i[0, 2],
            cal_h[0],
            cal_k[0, 0],
            cal_k[0, 1],
            cal_p[0],
            cal_n[0],
            cal_i[1, 0],
            cal_i[1, 1],
            cal_i[1, 2],
            cal_h[1],
            cal_k[1, 0],
            cal_k[1, 1],
            cal_p[1],
            cal_n[1],
            span - 1,
            dirty,
            dirty_list,
            alive,
            bmach,
            brem,
            neg_d,
            deadline,
            droot,
            dleft,
            dright,
            brun,
            bsince,
            to_key,
            to_job,
            to_pos,
            tgrp,
            n_tgrp,
            tq_next,
            tq_head,
            tq_tail,
            tq_off,
            bd,
            bd_list,
            kept,
            machine,
            completion,
            late,
            last_row,
            ti,
            tf,
            st,
            Tv,
        )
        if need == 0:
            break
        k = max(2 * ti.shape[0], need)
        ti2 = np.empty((k, 2), np.int64)
        tf2 = np.empty((k, 3), np.float64)
        rows = st[_ROWS]
        ti2[:rows] = ti[:rows]
        tf2[:rows] = tf[:rows]
        ti, tf = ti2, tf2
    gi, gf = by_machine(ti, tf, st[_ROWS], m)
    return machine, completion, late, gi, gf, st[_AREJ], st[_TIMEOUTS], st[_KEPT]


@compiled(_nrt=False)
def _simulate(
    release,
    size,
    indptr,
    indices,
    order,
    m,
    n_classes,
    cls,
    pw,
    tie,
    limit,
    T_at,
    wflow,
    dexp,
    srpt,
    mode_b,
    cval,
    dshift,
    no_hopeless,
    prefix,
    loads,
    qhead,
    qtail,
    nxt,
    rem,
    cur,
    since,
    head,
    nonempty,
    sroot,
    sleft,
    sright,
    posk,
    a_slot,
    a_nx,
    a_pv,
    a_head,
    a_key,
    a_mach,
    a_pos,
    a_n,
    b_slot,
    b_nx,
    b_pv,
    b_head,
    b_key,
    b_mach,
    b_pos,
    b_n,
    mask,
    dirty,
    dirty_list,
    alive,
    bmach,
    brem,
    neg_d,
    deadline,
    droot,
    dleft,
    dright,
    brun,
    bsince,
    to_key,
    to_job,
    to_pos,
    tgrp,
    n_tgrp,
    tq_next,
    tq_head,
    tq_tail,
    tq_off,
    bd,
    bd_list,
    kept,
    machine,
    completion,
    late,
    last_row,
    ti,
    tf,
    st,
    Tv,
):
    """The event loop of :func:`class_kernel` (no array is allocated or reference-counted
    here). Returns 0 when the run is over, else the number of trace rows the arrays must hold
    before the next slot is run (the state is saved in ``st`` and ``Tv``; the call resumes).

    Room: within one slot, a machine is advanced in A with dt > 0 at most once (at most two
    rows, see :func:`_a_advance`) and synced in B with dt > 0 at most once (one row), and only
    machines with a job or an event are touched: 3·min(m, jobs to come + events) + 16 rows."""
    n = size.shape[0]
    pos, ntos, rows, tprev = st[_POS], st[_NTOS], st[_ROWS], st[_TPREV]
    a_rejections, timeouts, hopeless_kept = st[_AREJ], st[_TIMEOUTS], st[_KEPT]
    T = Tv[0]
    fifo = n_tgrp > 0
    ndirty = 0
    nbd = 0
    need = 0
    while True:
        # the next slot at which anything happens
        t = np.int64(2**62)
        if pos < n:
            t = release[pos]
        if mode_b:
            if fifo:
                for g in range(n_tgrp):
                    f = tq_head[g]
                    while f >= 0 and not alive[f]:  # completed (or timed out) before its timeout
                        f = tq_next[f]
                        ntos -= 1
                    tq_head[g] = f
                    if f >= 0:
                        s = release[f] + tq_off[g]
                        if s < t:
                            t = s
                    else:
                        tq_tail[g] = -1
            elif ntos > 0 and to_key[0] < t:
                t = to_key[0]
            t = _cal_next(t, tprev, b_head, mask, b_key, b_n)
        t = _cal_next(t, tprev, a_head, mask, a_key, a_n)
        if t == np.int64(2**62):
            break
        room = 3 * min(m, (n - pos) + a_n[0] + a_n[1] + b_n[0] + b_n[1] + ntos) + 16
        if rows + room > ti.shape[0]:
            need = rows + room
            break
        tprev = t
        # ---- arrivals of slot t
        while pos < n and release[pos] == t:
            j = pos
            pos += 1
            if prefix and T_at[j] != T:
                T = T_at[j]
                if mode_b and no_hopeless:  # a larger T moves timeouts later (gwmft.T_changed)
                    for i in range(m):
                        if kept[i] and not bd[i]:
                            bd[i] = True
                            bd_list[nbd] = i
                            nbd += 1
            c = cls[j]
            i, best_load = _a_pick(order[j], c, t, indptr, indices, loads, cur, since)
            if best_load + size[j] > limit[j]:
                a_rejections += 1
                continue
            # add to A (ClassQueues.add: advance first)
            rows = _a_add(
                i,
                j,
                t,
                c,
                size[j],
                srpt,
                cls,
                loads,
                qhead,
                qtail,
                nxt,
                rem,
                cur,
                since,
                head,
                nonempty,
                mode_b,
                last_row,
                ti,
                tf,
                rows,
                completion,
                sroot,
                release,
                posk,
                sleft,
                sright,
            )
            machine[j] = i
            if not dirty[i]:
                dirty[i] = True
                dirty_list[ndirty] = i
                ndirty += 1
            if mode_b:
                x = _b_add(j, i, T, cval, release, wflow, alive, bmach, deadline, droot, neg_d, posk, dleft, dright)
                if fifo:
                    g = tgrp[j]
                    if tq_tail[g] >= 0:
                        tq_next[tq_tail[g]] = j
                    else:
                        tq_head[g] = j
                    tq_tail[g] = j
                    ntos += 1
                else:
                    ntos = _ih_push(j, _timeout(release[j], x), ntos, to_key, to_job, to_pos)
                if not bd[i]:
                    bd[i] = True
                    bd_list[nbd] = i
                    nbd += 1
        # ---- A: re-decide every machine with an event at t or an arrival
        ndirty = _cal_take(t, a_slot, a_nx, a_head, mask, a_key, a_mach, a_pos, a_n, dirty, dirty_list, ndirty)
        for q in range(ndirty):
            i = dirty_list[q]
            dirty[i] = False
            rows = _a_advance(
                i,
                t,
                srpt,
                cls,
                loads,
                qhead,
                nxt,
                rem,
                cur,
                since,
                head,
                nonempty,
                mode_b,
                last_row,
                ti,
                tf,
                rows,
                completion,
            )
            k = _a_choose(
                i,
                t,
                srpt,
                n_classes,
                cls,
                pw,
                tie,
                loads,
                qhead,
                rem,
                cur,
                since,
                head,
                nonempty,
                sroot,
                sleft,
                sright,
                release,
                posk,
            )
            if k > 0:
                _cal_set(i, t + k, t, a_slot, a_nx, a_pv, a_head, mask, a_key, a_mach, a_pos, a_n)
            else:
                _cal_remove(i, a_slot, a_nx, a_pv, a_head, mask, a_key, a_mach, a_pos, a_n)
            if mode_b and not bd[i]:
                bd[i] = True
                bd_list[nbd] = i
                nbd += 1
        ndirty = 0
        if not mode_b:
            continue
        # ---- B: completions, timeouts, choices
        nbd = _cal_take(t, b_slot, b_nx, b_head, mask, b_key, b_mach, b_pos, b_n, bd, bd_list, nbd)
        if fifo:
            for g in range(n_tgrp):
                while True:
                    j = tq_head[g]
                    if j < 0 or release[j] + tq_off[g] > t:
                        break
                    tq_head[g] = tq_next[j]
                    ntos -= 1
                    if not alive[j]:
                        continue
                    i = bmach[j]
                    rows, done = _b_sync(i, t, brun, bsince, brem, alive, completion, last_row, ti, tf, rows)
                    if not alive[j]:
                        continue  # completed at the end of the last slot
                    alive[j] = False
                    if brun[i] == j:
                        brun[i] = -1
                    timeouts += 1
                    late[j] = t
                    if not bd[i]:
                        bd[i] = True
                        bd_list[nbd] = i
                        nbd += 1
                if tq_head[g] < 0:
                    tq_tail[g] = -1
        while ntos > 0 and not fifo and to_key[0] <= t:
            j = to_job[0]
            ntos = _ih_remove(j, ntos, to_key, to_job, to_pos)
            if not alive[j]:
                continue
            if prefix:
                s = _timeout(release[j], cval * T / wflow[j])
                if s > t:
                    ntos = _ih_push(j, s, ntos, to_key, to_job, to_pos)
                    continue
            i = bmach[j]
            rows, done = _b_sync(i, t, brun, bsince, brem, alive, completion, last_row, ti, tf, rows)
            if done >= 0:
                ntos = _ih_remove(done, ntos, to_key, to_job, to_pos)
            if not alive[j]:
                continue  # completed at the end of the last slot
            alive[j] = False
            if brun[i] == j:
                brun[i] = -1
            timeouts += 1
            late[j] = t
            if not bd[i]:
                bd[i] = True
                bd_list[nbd] = i
                nbd += 1
        for q in range(nbd):
            i = bd_list[q]
            bd[i] = False
            rows, done = _b_sync(i, t, brun, bsince, brem, alive, completion, last_row, ti, tf, rows)
            if done >= 0 and not fifo:
                ntos = _ih_remove(done, ntos, to_key, to_job, to_pos)
            hopeless_kept += _b_decide(
                i,
                t,
                T,
                cval,
                no_hopeless,
                dshift,
                size,
                release,
                wflow,
                dexp,
                head,
                brun,
                brem,
                alive,
                droot,
                neg_d,
                deadline,
                posk,
                dleft,
                dright,
                kept,
            )
            pick = brun[i]
            if pick >= 0:
                _cal_set(i, t + brem[pick], t, b_slot, b_nx, b_pv, b_head, mask, b_key, b_mach, b_pos, b_n)
            else:
                _cal_remove(i, b_slot, b_nx, b_pv, b_head, mask, b_key, b_mach, b_pos, b_n)
        nbd = 0
    st[_POS], st[_NTOS], st[_ROWS], st[_TPREV] = pos, ntos, rows, tprev
    st[_AREJ], st[_TIMEOUTS], st[_KEPT] = a_rejections, timeouts, hopeless_kept
    Tv[0] = T
    return need


@compiled(inline="always")
def _timeout(r, x):
    """timeout_slot of _classes: the first slot t with t − r ≥ x (relative slack 1e-9); r + 2^62
    (never reached) when x ≥ 2^62 or is infinite, before any float-to-int conversion."""
    if not x < 4.611686018427388e18:  # 2^62
        return r + np.int64(4611686018427387904)
    y = np.ceil(x - 1e-9 * max(1.0, x))
    return r + (np.int64(y) if y > 0 else 0)


@compiled(inline="always")
def _a_advance(
    i, t, srpt, cls, loads, qhead, nxt, rem, cur, since, head, nonempty, mode_b, last_row, ti, tf, rows, completion
):
    """A's processing on machine i from since[i] to slot t (ClassQueues.advance / the SRPT
    variant); records the trace when A is the algorithm the engine runs (not under B): at most
    two rows (an advance never passes the head's completion, which is an event), into room the
    caller made (:func:`_put` refuses to write past it)."""
    dt = t - since[i]
    if dt <= 0:
        return rows
    if srpt:
        h = head[i]
        since[i] = t
        if h < 0:
            return rows
        c = cls[h]
        left = loads[i, c] - dt
        if left == 0:
            nonempty[i] -= 1
        loads[i, c] = left
        r = rem[h] - dt
        if not mode_b:
            rows = put_row(ti, tf, rows, last_row, i, h, float(t - dt), float(t), float(dt))
        rem[h] = r
        if r == 0:
            if not mode_b:
                completion[h] = t
            head[i] = -1
            cur[i] = -1
        return rows
    c = cur[i]
    if c < 0:
        since[i] = t
        return rows
    left = loads[i, c] - dt
    start = since[i]
    while dt > 0:
        h = qhead[i, c]
        r = rem[h]
        if r <= dt:
            if not mode_b:
                rows = put_row(ti, tf, rows, last_row, i, h, float(start), float(start + r), float(r))
                completion[h] = start + r
            start += r
            dt -= r
            rem[h] = 0
            qhead[i, c] = nxt[h]
        else:
            if not mode_b:
                rows = put_row(ti, tf, rows, last_row, i, h, float(start), float(start + dt), float(dt))
            rem[h] = r - dt
            dt = 0
    if left == 0:
        loads[i, c] = 0
        nonempty[i] -= 1
        cur[i] = -1
    else:
        loads[i, c] = left
    since[i] = t
    return rows


@compiled(inline="always")
def _b_sync(i, t, brun, bsince, brem, alive, completion, last_row, ti, tf, rows):
    """B's processing on machine i up to slot t: its running job since bsince[i] (WmftB.bsync).
    Returns the row count and the job that completed (−1: none)."""
    j = brun[i]
    dt = t - bsince[i]
    bsince[i] = t
    if j < 0 or dt <= 0:
        return rows, -1
    r = brem[j] - dt
    rows = put_row(ti, tf, rows, last_row, i, j, float(t - dt), float(t), float(dt))
    brem[j] = r
    if r == 0:
        alive[j] = False
        brun[i] = -1
        completion[j] = t
        return rows, j
    return rows, -1


@compiled(inline="always")
def _a_choose(
    i,
    t,
    srpt,
    n_classes,
    cls,
    pw,
    tie,
    loads,
    qhead,
    rem,
    cur,
    since,
    head,
    nonempty,
    sroot,
    sleft,
    sright,
    release,
    posk,
):
    """A's re-decision on machine i at slot t (after advancing it): sets head/cur and returns
    the delay k ≥ 1 of its next event (0: idle, no event)."""
    if srpt:
        h = head[i]
        if h >= 0:
            sroot[i] = _meld3(sroot[i], h, rem, release, posk, sleft, sright)
        r = sroot[i]
        if r < 0:
            cur[i] = -1
            head[i] = -1
            return 0
        sroot[i] = _pop3(r, rem, release, posk, sleft, sright)
        head[i] = r
        cur[i] = cls[r]
        since[i] = t
        return rem[r]
    best = -1
    second = -1
    bP = -1.0
    sP = -1.0
    if nonempty[i] > 0:
        for c in range(n_classes):
            L = loads[i, c]
            if L == 0:
                continue
            P = L * pw[c]
            if P > bP or (P == bP and tie[c] > tie[best]):
                sP, second = bP, best
                best, bP = c, P
            elif P > sP or (P == sP and tie[c] > tie[second]):
                sP, second = P, c
    if best < 0:
        cur[i] = -1
        head[i] = -1
        return 0
    cur[i] = best
    since[i] = t
    h = qhead[i, best]
    head[i] = h
    k = rem[h]
    if second >= 0:
        L = loads[i, best]
        x = sP / pw[best]
        if tie[best] > tie[second]:
            kc = np.int64(np.floor(L - x)) + 1
        else:
            kc = np.int64(np.ceil(L - x))
        if kc < k:
            k = kc if kc > 1 else 1
    return k


# ---------------------------------------------------------------------- caller
def run_class_rule(alg, inst, order, mode_b: bool, srpt: bool) -> CompiledRun | None:
    """The compiled run of a :class:`~schedbench.scheduling.algorithms._classes.ClassRule`
    algorithm ``alg`` on ``inst`` (None when its class tables would pass
    :data:`MAX_CLASS_CELLS`: the step path); ``mode_b``: B on top of A, ``srpt``: A processed
    SRPT (``class-ll-srpt``). Sets the algorithm's counters as the step path does."""
    from schedbench.scheduling.problems import get_problem

    prob = get_problem(alg.problem)
    size = inst.size[order].astype(np.int64)
    release = inst.release[order].astype(np.int64)
    n = size.size
    # the problem's two weights (ClassRule.classify), with the same float operations
    if prob.flow_weight == "w_flow":
        wf = np.asarray(inst.w_flow, dtype=np.float64)[order]
    elif prob.flow_weight == "one":
        wf = np.ones(n)
    else:
        wf = 1.0 / size.astype(np.float64)
    if prob.budget_weight == "count":
        wr = np.ones(n)
    elif prob.budget_weight == "w_flow":
        wr = np.asarray(inst.w_flow, dtype=np.float64)[order]
    else:
        wr = np.asarray(inst.w_reject, dtype=np.float64)[order]
    a = np.frexp((size - 1).astype(np.float64))[1].astype(np.int64)  # ⌈log₂ p⌉ = bit_length(p − 1)
    b = np.frexp(wf)[1].astype(np.int64) - 1
    e = np.frexp(wr)[1].astype(np.int64) - 1
    # one int64 per class (a < 64, |b|, |e| < 2^11 for finite float weights), unique in 1-d
    packed = (a << 24) | ((b + 2048) << 12) | (e + 2048)
    values, cls = np.unique(packed, return_inverse=True)
    cls = cls.reshape(-1).astype(np.int64)
    keys = np.stack([values >> 24, ((values >> 12) & 4095) - 2048, (values & 4095) - 2048], axis=1)
    n_classes = keys.shape[0]
    if float(inst.m) * n_classes > MAX_CLASS_CELLS:
        return None
    pw = np.ldexp(1.0, keys[:, 1] - keys[:, 0])
    tie_order = np.lexsort((keys[:, 2], -keys[:, 0], keys[:, 1]))  # (b, −a, e) ascending
    tie = np.empty(n_classes, np.int64)
    tie[tie_order] = np.arange(n_classes)
    if alg.prefix:
        lb = np.maximum.accumulate(wf * size)
        T_at = pow2_at_least(lb)
    else:
        T_at = np.full(n, float(alg.T))
    limit = alg.alpha * np.ldexp(T_at, -b)
    if mode_b:
        by_reject = bool(getattr(alg, "by_reject", False))
        dexp = ((e if by_reject else b) - a).astype(np.int64)
        cval, dshift = float(alg.c), int(alg.dshift)
        no_hopeless = bool(getattr(alg, "no_hopeless", False))
    else:
        dexp, cval, dshift, no_hopeless = np.zeros(n, np.int64), 1.0, 0, False
    n_tgrp, tgrp = 0, np.zeros(1, np.int64)
    if mode_b and not alg.prefix and n:
        wvals, tg = np.unique(wf, return_inverse=True)
        if wvals.size <= MAX_TIMEOUT_QUEUES:
            n_tgrp, tgrp = int(wvals.size), tg.reshape(-1).astype(np.int64)
    smax = int(size.max()) if n else 1
    span = 1 << max(4, min(smax, 4096).bit_length())  # > the largest size, at most 8192
    machine, completion, late, ti, tf, a_rej, timeouts, kept = class_kernel(
        release,
        size,
        inst.indptr,
        inst.indices,
        order,
        inst.m,
        n_classes,
        cls,
        pw,
        tie,
        limit,
        T_at,
        wf,
        dexp,
        srpt,
        mode_b,
        cval,
        dshift,
        no_hopeless,
        bool(alg.prefix),
        tgrp,
        n_tgrp,
        span,
    )
    alg.counters["a_rejections"] = int(a_rej)
    if mode_b:
        alg.counters["timeouts"] = int(timeouts)
        if "hopeless_kept" in alg.counters:
            alg.counters["hopeless_kept"] = int(kept)
    if alg.prefix and n:
        alg.T = float(T_at[-1])
    return CompiledRun(machine, completion, ti, tf, late_reject_slot=late if mode_b else None)
