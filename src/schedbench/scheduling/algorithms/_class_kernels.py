"""Compiled path of algorithm B (``docs/models/rejection-model.md`` §4.3, §5): ``wmft-B`` and
``gwmft``, every parameter (A alone and ``class-ll-srpt`` are policies on the machine core:
:mod:`~.wmft_a`, :mod:`~.class_ll_srpt`).

:func:`class_kernel` is the whole run of one instance in one call. It simulates algorithm A
exactly as :class:`~schedbench.scheduling.algorithms._classes.ClassQueues` does (per-machine
class queues, own-class least-load dispatch, the queue limit, the class rule
:func:`class_priority` re-decided at arrivals, completions and priority crossings),
untraced, and B and B_gen on top of it as
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
decision is the machine's own).

The state is a handful of records (named tuples of arrays, each built once): the jobs
(:data:`_Jobs`), A's machines (:data:`_A`), B's (:data:`_B`), two calendars (:data:`Calendar`), the
timeouts (:data:`_Timeouts`) and the outcome with its trace (:data:`_Out`). The helpers of the
loop are inlined into it (``inline="always"``) and reference-count nothing (``_nrt=False``), so
a record costs no more than its arrays passed one by one.

The trace is B's processing, one row per maximal interval of one job on one machine. Jobs are
numbered by arrival position (the engine's ids, which break the ties).
``tests/conformance/test_compiled_paths.py`` checks the kernel against the step path.

A's policy on the core (:mod:`~.wmft_a`) shares the calendar (:func:`new_calendar`,
:func:`cal_set` …) and :func:`class_priority` from here.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.scheduling.algorithms._classes import class_tables
from schedbench.scheduling.compiled import CompiledRun
from schedbench.scheduling.machines import by_machine, heap_meld, heap_pop, put_row

__all__ = [
    "NEVER",
    "Calendar",
    "calendar_span",
    "new_calendar",
    "cal_del",
    "cal_set",
    "cal_next",
    "cal_take",
    "mark",
    "class_priority",
    "class_kernel",
    "run_class_rule",
]

#: B's timeouts (T fixed) go in one FIFO queue per distinct flow weight when there are at most
#: this many weights (each slot looks at every queue's front), else in an indexed heap.
MAX_TIMEOUT_QUEUES = 64

NEVER = np.int64(2**62)  # a slot no event reaches


def calendar_span(size) -> int:
    """The ring size of a calendar for jobs of these integer sizes: a power of two above the
    largest size (at most 8192, at least 32), so a completion falls in the ring."""
    smax = int(size.max()) if size.size else 1
    return 1 << max(4, min(smax, 4096).bit_length())


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
def ih_push(j, slot, size, key, job, pos):
    key[size] = slot
    job[size] = j
    pos[j] = size
    _ih_up(size, key, job, pos)
    return size + 1


@compiled(_nrt=False)
def ih_remove(j, size, key, job, pos):
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


#: One calendar of machines (A's next event per machine, or B's): a ring of ``mask + 1``
#: one-slot buckets for events less than that far ahead (links ``nx``/``pv``, bucket ``head``),
#: an indexed heap (``key``, ``mach``, ``pos``) beyond; ``n``: (ring, heap) sizes.
Calendar = namedtuple("Calendar", "slot nx pv head key mach pos n mask")


@compiled(inline="always")
def mark(flag, lst, k, i):
    """Add machine i to the set ``lst[:k]`` (membership in ``flag``); returns its new size."""
    if not flag[i]:
        flag[i] = True
        lst[k] = i
        k += 1
    return k


# ---------------------------------------------------------------------- calendars of machines
# A's and B's next event per machine (at most one each), in a ring of W one-slot buckets
# (doubly linked lists of machines) for the events less than W slots ahead, and in an indexed
# heap beyond. Every event is taken at its slot, so the ring holds slots of [t, t + W) only:
# a bucket holds one slot. The order of the machines within a slot is not the heap's; no
# decision depends on it (A's and B's decisions of one slot are per machine, and a machine's
# trace rows are in time order whatever the order of the machines).
@compiled
def new_calendar(m, span):
    return Calendar(
        np.full(m, -1, np.int64),
        np.full(m, -1, np.int64),
        np.full(m, -1, np.int64),
        np.full(span, -1, np.int64),
        np.empty(m, np.int64),
        np.empty(m, np.int64),
        np.full(m, -1, np.int64),
        np.zeros(2, np.int64),
        span - 1,
    )


@compiled(inline="always")
def cal_del(cal, i):
    """Remove machine i's event, if any."""
    s = cal.slot[i]
    if s < 0:
        return
    cal.slot[i] = -1
    if cal.pos[i] >= 0:
        cal.n[1] = ih_remove(i, cal.n[1], cal.key, cal.mach, cal.pos)
        return
    p = cal.pv[i]
    x = cal.nx[i]
    if p >= 0:
        cal.nx[p] = x
    else:
        cal.head[s & cal.mask] = x
    if x >= 0:
        cal.pv[x] = p
    cal.n[0] -= 1


@compiled(inline="always")
def cal_set(cal, i, s, t):
    """Machine i's event at slot s > t (set during slot t), replacing the one it had."""
    cal_del(cal, i)
    cal.slot[i] = s
    if s - t <= cal.mask:
        b = s & cal.mask
        h = cal.head[b]
        cal.nx[i] = h
        cal.pv[i] = -1
        if h >= 0:
            cal.pv[h] = i
        cal.head[b] = i
        cal.n[0] += 1
    else:
        cal.n[1] = ih_push(i, s, cal.n[1], cal.key, cal.mach, cal.pos)


@compiled(inline="always")
def cal_next(cal, t, tprev):
    """The smaller of t and the calendar's first slot (the ring holds slots of (tprev, tprev + W))."""
    if cal.n[1] > 0 and cal.key[0] < t:
        t = cal.key[0]
    if cal.n[0] > 0:
        s = tprev + 1
        e = min(t, tprev + cal.mask + 1)
        while s < e:
            if cal.head[s & cal.mask] >= 0:
                return s
            s += 1
    return t


@compiled(inline="always")
def cal_take(cal, t, flag, lst, nl):
    """Takes the machines whose event is at slot t out of the calendar and adds them to the set
    ``lst[:nl]`` (:func:`mark`); returns its new size."""
    b = t & cal.mask
    i = cal.head[b]
    cal.head[b] = -1
    while i >= 0:
        x = cal.nx[i]
        cal.slot[i] = -1
        cal.n[0] -= 1
        nl = mark(flag, lst, nl, i)
        i = x
    while cal.n[1] > 0 and cal.key[0] <= t:
        i = cal.mach[0]
        cal.n[1] = ih_remove(i, cal.n[1], cal.key, cal.mach, cal.pos)
        cal.slot[i] = -1
        nl = mark(flag, lst, nl, i)
    return nl


# ---------------------------------------------------------------------- A's class rule
@compiled(inline="always")
def class_priority(loads, i, pw, tie):
    """A's class rule on machine i (§4.2, :meth:`ClassQueues.choose`): the class c with load
    L_c = ``loads[i, c]`` > 0 maximising L_c·2^{b−a} (``pw[c]``; ties: the larger ``tie[c]``), −1 if none, and the
    delay k ≥ 1 after which its priority, falling by 2^{b−a} a slot while it runs, passes below
    the best other class's (constant meanwhile; :data:`NEVER` if there is none). Exact: loads
    are integers and priorities dyadic."""
    best, second, bP, sP = -1, -1, -1.0, -1.0
    for c in range(pw.shape[0]):
        L = loads[i, c]
        if L == 0:
            continue
        P = L * pw[c]
        if P > bP or (P == bP and tie[c] > tie[best]):
            sP, second = bP, best
            best, bP = c, P
        elif P > sP or (P == sP and tie[c] > tie[second]):
            sP, second = P, c
    if best < 0 or second < 0:
        return best, NEVER
    L = loads[i, best]
    x = sP / pw[best]
    if tie[best] > tie[second]:
        k = np.int64(np.floor(L - x)) + 1
    else:
        k = np.int64(np.ceil(L - x))
    return best, max(k, np.int64(1))


# ---------------------------------------------------------------------- the records
#: The instance and the rule's per-job inputs, by arrival position (``order[pos]`` is the job):
#: ``cls`` (class index), ``limit`` (A's queue limit α·T/2^b at arrival), ``T_at`` (T after the
#: arrival: oracle T* or the prefix bound), ``wflow`` (flow weight), ``dexp`` (B's density
#: exponent); ``prefix``: T grows (timeouts re-checked).
_Jobs = namedtuple("_Jobs", "release size indptr indices order m cls limit T_at wflow dexp prefix")
#: The rule: ``n_classes``, per class ``pw`` (2^{b−a}) and ``tie`` (rank of (b, −a, e), larger
#: wins); B's ``cval`` (c), ``dshift`` (density ≥ D·density' ⟺ exponent ≥ exponent' + dshift), ``no_hopeless`` (gwmft);
#: ``tgrp``/``n_tgrp`` (per job, its flow weight's index among ≤ 64 distinct ones, T fixed; 0:
#: the timeouts in an indexed heap); ``span``: the calendars' ring size (a power of two).
_Rule = namedtuple("_Rule", "n_classes pw tie cval dshift no_hopeless tgrp n_tgrp span")
#: A's machines: per (machine, class) load and FIFO queue, the
#: class each runs (``cur``) since ``since``, its job in service (``head``), non-empty classes,
#: the machines to re-decide in this slot (``dirty``).
_A = namedtuple(
    "_A",
    "n_classes pw tie posk loads qhead qtail nxt rem cur since head nonempty dirty dirty_list",
)
#: B: per job alive, machine, remaining work, deadline (density-first heap per machine, key
#: (−density exponent, deadline, position)); per machine the job it runs since ``bsince``,
#: whether gwmft kept a hopeless job (``kept``), the machines to re-decide (``bd``).
_B = namedtuple(
    "_B",
    "cval dshift no_hopeless size release wflow dexp posk alive bmach brem neg_d deadline droot dleft dright "
    "brun bsince kept bd bd_list",
)
#: B's timeouts of alive jobs: with T fixed, one FIFO queue per flow weight (``next``, ``head``,
#: ``tail``, offset ``off`` = the timeout after release), else an indexed heap (``key``, ``job``,
#: ``pos``).
_Timeouts = namedtuple("_Timeouts", "fifo n_tgrp tgrp next head tail off key job pos")
#: The outcome, by arrival position, and the trace (rows: ``ti`` machine, position; ``tf``
#: start, end, work; ``last_row`` per machine).
_Out = namedtuple("_Out", "machine completion late last_row ti tf")


# ---------------------------------------------------------------------- A
@compiled(inline="always")
def _a_pick(A, t, c, indptr, indices, o):
    """A's dispatch (ClassQueues.least_loaded): job o's eligible machine with the least
    own-class load at t (ties: lowest index, eligible sets ascending) and that load."""
    best = -1
    best_load = np.int64(0)
    for q in range(indptr[o], indptr[o + 1]):
        i = indices[q]
        L = A.loads[i, c]
        if L != 0 and A.cur[i] == c:
            L -= t - A.since[i]
        if best < 0 or L < best_load:
            best = i
            best_load = L
            if L == 0:
                break
    return best, best_load


@compiled(inline="always")
def _a_add(A, i, j, t, c, p):
    """ClassQueues.add: advance machine i to t, then queue job j (class c, size p) on it."""
    _a_advance(A, i, t)
    if A.loads[i, c] == 0:
        A.nonempty[i] += 1
    A.loads[i, c] += p
    if A.qhead[i, c] < 0:
        A.qhead[i, c] = j
    else:
        A.nxt[A.qtail[i, c]] = j
    A.qtail[i, c] = j


@compiled(inline="always")
def _a_advance(A, i, t):
    """A's processing on machine i from since[i] to slot t (ClassQueues.advance), untraced (B
    is the algorithm the engine runs). An advance never passes the head's completion, which is
    an event."""
    dt = t - A.since[i]
    if dt <= 0:
        return
    c = A.cur[i]
    if c < 0:
        A.since[i] = t
        return
    left = A.loads[i, c] - dt
    start = A.since[i]
    while dt > 0:
        h = A.qhead[i, c]
        r = A.rem[h]
        if r <= dt:
            start += r
            dt -= r
            A.rem[h] = 0
            A.qhead[i, c] = A.nxt[h]
        else:
            A.rem[h] = r - dt
            dt = 0
    if left == 0:
        A.loads[i, c] = 0
        A.nonempty[i] -= 1
        A.cur[i] = -1
    else:
        A.loads[i, c] = left
    A.since[i] = t


@compiled(inline="always")
def _a_choose(A, i, t):
    """A's re-decision on machine i at slot t (after advancing it): sets head/cur and returns
    the delay k ≥ 1 of its next event (0: idle, no event)."""
    best, k = class_priority(A.loads, i, A.pw, A.tie) if A.nonempty[i] > 0 else (-1, NEVER)
    if best < 0:
        A.cur[i] = -1
        A.head[i] = -1
        return 0
    A.cur[i] = best
    A.since[i] = t
    h = A.qhead[i, best]
    A.head[i] = h
    return min(A.rem[h], k)


# ---------------------------------------------------------------------- B
@compiled(inline="always")
def _timeout(r, x):
    """timeout_slot of _classes: the first slot t with t − r ≥ x (relative slack 1e-9); r + 2^62
    (never reached) when x ≥ 2^62 or is infinite, before any float-to-int conversion."""
    if not x < 4.611686018427388e18:  # 2^62
        return r + np.int64(4611686018427387904)
    y = np.ceil(x - 1e-9 * max(1.0, x))
    return r + (np.int64(y) if y > 0 else 0)


@compiled(inline="always")
def _b_add(B, j, i, T):
    """B takes job j on machine i (alive, densest-first heap); returns c·T/w of its timeout."""
    B.alive[j] = True
    B.bmach[j] = i
    x = B.cval * T / B.wflow[j]
    B.deadline[j] = B.release[j] + x
    B.droot[i] = heap_meld(B.droot[i], j, B.neg_d, B.deadline, B.posk, B.dleft, B.dright)
    return x


@compiled(inline="always")
def _b_sync(B, out, rows, i, t):
    """B's processing on machine i up to slot t: its running job since bsince[i] (WmftB.bsync).
    Returns the row count and the job that completed (−1: none)."""
    j = B.brun[i]
    dt = t - B.bsince[i]
    B.bsince[i] = t
    if j < 0 or dt <= 0:
        return rows, -1
    r = B.brem[j] - dt
    rows = put_row(out.ti, out.tf, rows, out.last_row, i, j, float(t - dt), float(t), float(dt))
    B.brem[j] = r
    if r == 0:
        B.alive[j] = False
        B.brun[i] = -1
        out.completion[j] = t
        return rows, j
    return rows, -1


@compiled(inline="always")
def _b_decide(B, a_head, i, t, T):
    """B's re-decision on machine i at slot t, after :func:`_b_sync` (WmftB.b_choose /
    gwmft.keep_running; ``a_head``: A's jobs in service): sets brun[i]; returns 1 if gwmft kept
    a hopeless job running, else 0."""
    r = B.droot[i]
    while r >= 0 and not B.alive[r]:
        r = heap_pop(r, B.neg_d, B.deadline, B.posk, B.dleft, B.dright)
    B.droot[i] = r
    top = r
    ja = a_head[i]
    if ja >= 0 and top >= 0 and B.dexp[top] < B.dexp[ja] + B.dshift and B.alive[ja]:
        pick = ja
    else:
        pick = top
    hk = 0
    if B.no_hopeless:  # gwmft.keep_running
        run = B.brun[i]
        B.kept[i] = False
        if not (run < 0 or pick == run or pick < 0 or B.brem[run] == B.size[run]):
            if t + B.brem[pick] > _timeout(B.release[pick], B.cval * T / B.wflow[pick]):
                hk = 1
                B.kept[i] = True
                pick = run
    B.brun[i] = pick
    return hk


@compiled(inline="always")
def _time_out(B, out, rows, j, t):
    """Job j's timeout at slot t: its machine synced first (it may have completed at the end of
    the last slot). Returns the rows, the job that completed in the sync (−1: none) and the
    machine that lost j (−1: j was not alive)."""
    i = B.bmach[j]
    rows, done = _b_sync(B, out, rows, i, t)
    if not B.alive[j]:
        return rows, done, -1
    B.alive[j] = False
    if B.brun[i] == j:
        B.brun[i] = -1
    out.late[j] = t
    return rows, done, i


@compiled(inline="always")
def _to_add(TO, j, r, x, ntos):
    """Job j (released at r, timeout after x) joins the timeouts; returns their count."""
    if TO.fifo:
        g = TO.tgrp[j]
        if TO.tail[g] >= 0:
            TO.next[TO.tail[g]] = j
        else:
            TO.head[g] = j
        TO.tail[g] = j
        return ntos + 1
    return ih_push(j, _timeout(r, x), ntos, TO.key, TO.job, TO.pos)


@compiled(inline="always")
def _to_next(TO, alive, release, t, ntos):
    """The smaller of t and the first pending timeout of an alive job; the FIFO queues drop the
    jobs that completed before theirs. Returns (slot, the timeouts' count)."""
    if not TO.fifo:
        if ntos > 0 and TO.key[0] < t:
            t = TO.key[0]
        return t, ntos
    for g in range(TO.n_tgrp):
        f = TO.head[g]
        while f >= 0 and not alive[f]:  # completed (or timed out) before its timeout
            f = TO.next[f]
            ntos -= 1
        TO.head[g] = f
        if f >= 0:
            s = release[f] + TO.off[g]
            if s < t:
                t = s
        else:
            TO.tail[g] = -1
    return t, ntos


# ---------------------------------------------------------------------- the kernel
#: The run's scalar state between calls of :func:`_simulate` (slots of its ``st`` array).
_POS, _TPREV, _NTOS, _ROWS, _AREJ, _TIMEOUTS, _KEPT = 0, 1, 2, 3, 4, 5, 6


@compiled
def _new_state(J, R):
    """The records of a run (every array allocated here, once)."""
    n, m = J.size.shape[0], J.m
    n_tgrp = R.n_tgrp
    nb = n
    A = _A(
        R.n_classes,
        R.pw,
        R.tie,
        np.arange(n),
        np.zeros((m, R.n_classes), np.int64),
        np.full((m, R.n_classes), -1, np.int64),
        np.full((m, R.n_classes), -1, np.int64),
        np.full(n, -1, np.int64),
        J.size.copy(),
        np.full(m, -1, np.int64),
        np.zeros(m, np.int64),
        np.full(m, -1, np.int64),
        np.zeros(m, np.int64),
        np.zeros(m, np.bool_),
        np.empty(m, np.int64),
    )
    B = _B(
        R.cval,
        R.dshift,
        R.no_hopeless,
        J.size,
        J.release,
        J.wflow,
        J.dexp,
        A.posk,
        np.zeros(nb, np.bool_),
        np.full(nb, -1, np.int64),
        J.size.copy(),
        -J.dexp,
        np.zeros(nb, np.float64),
        np.full(m, -1, np.int64),
        np.full(nb, -1, np.int64),
        np.full(nb, -1, np.int64),
        np.full(m, -1, np.int64),
        np.zeros(m, np.int64),
        np.zeros(m, np.bool_),
        np.zeros(m, np.bool_),
        np.empty(m, np.int64),
    )
    nh = nb if n_tgrp == 0 else 1
    TO = _Timeouts(
        n_tgrp > 0,
        n_tgrp,
        R.tgrp,
        np.full(nb if n_tgrp > 0 else 1, -1, np.int64),
        np.full(n_tgrp, -1, np.int64),
        np.full(n_tgrp, -1, np.int64),
        np.zeros(n_tgrp, np.int64),
        np.empty(nh, np.int64),
        np.empty(nh, np.int64),
        np.full(nh, -1, np.int64),
    )
    if n_tgrp > 0:  # T fixed: a job's timeout is its release plus its flow weight's offset
        T0 = J.T_at[0] if n else 1.0
        for j in range(n):
            TO.off[R.tgrp[j]] = _timeout(0, R.cval * T0 / J.wflow[j])
    # the trace: room for 4 rows a job (A processes about 3 a job on sized jobs; pages not
    # written are never touched), grown only beyond
    cap = 4 * n + 3 * m + 16
    out = _Out(
        np.full(n, -1, np.int64),
        np.full(n, np.nan),
        np.full(n, -1, np.int64),
        np.full(m, -1, np.int64),
        np.empty((cap, 2), np.int64),
        np.empty((cap, 3), np.float64),
    )
    return A, B, TO, out


@compiled
def class_kernel(J, R):
    """The whole run: allocates its state and calls :func:`_simulate` until it has run every
    slot (it returns early, at a slot boundary, when the trace arrays need room: they grow
    here). Returns (machine, completion, late rejection slot, trace_int, trace_float, A's
    rejections, timeouts, hopeless jobs kept)."""
    A, B, TO, out = _new_state(J, R)
    ca, cb = new_calendar(J.m, R.span), new_calendar(J.m, R.span)
    st = np.zeros(7, np.int64)
    st[_TPREV] = -1
    Tv = np.full(1, J.T_at[0] if J.size.shape[0] else 1.0)
    while True:
        need = _simulate(J, A, B, ca, cb, TO, out, st, Tv)
        if need == 0:
            break
        k = max(2 * out.ti.shape[0], need)
        ti = np.empty((k, 2), np.int64)
        tf = np.empty((k, 3), np.float64)
        rows = st[_ROWS]
        ti[:rows] = out.ti[:rows]
        tf[:rows] = out.tf[:rows]
        out = _Out(out.machine, out.completion, out.late, out.last_row, ti, tf)
    gi, gf = by_machine(out.ti, out.tf, st[_ROWS], J.m)
    return out.machine, out.completion, out.late, gi, gf, st[_AREJ], st[_TIMEOUTS], st[_KEPT]


@compiled(_nrt=False)
def _simulate(J, A, B, ca, cb, TO, out, st, Tv):
    """The event loop of :func:`class_kernel` (no array is allocated or reference-counted
    here). Returns 0 when the run is over, else the number of trace rows the arrays must hold
    before the next slot is run (the state is saved in ``st`` and ``Tv``; the call resumes).

    Room: within one slot, a machine is synced in B with dt > 0 at most once (one row), and
    only machines with a job or an event are touched: 3·min(m, jobs to come + events) + 16 rows
    reserved."""
    n, m, release = J.size.shape[0], J.m, J.release
    pos, ntos, rows, tprev = st[_POS], st[_NTOS], st[_ROWS], st[_TPREV]
    a_rejections, timeouts, hopeless_kept = st[_AREJ], st[_TIMEOUTS], st[_KEPT]
    T = Tv[0]
    ndirty = 0
    nbd = 0
    need = 0
    while True:
        # the next slot at which anything happens
        t = NEVER
        if pos < n:
            t = release[pos]
        t, ntos = _to_next(TO, B.alive, release, t, ntos)
        t = cal_next(cb, t, tprev)
        t = cal_next(ca, t, tprev)
        if t == NEVER:
            break
        room = 3 * min(m, (n - pos) + ca.n[0] + ca.n[1] + cb.n[0] + cb.n[1] + ntos) + 16
        if rows + room > out.ti.shape[0]:
            need = rows + room
            break
        tprev = t
        # ---- arrivals of slot t
        while pos < n and release[pos] == t:
            j = pos
            pos += 1
            if J.prefix and J.T_at[j] != T:
                T = J.T_at[j]
                if B.no_hopeless:  # a larger T moves timeouts later (gwmft.T_changed)
                    for i in range(m):
                        if B.kept[i]:
                            nbd = mark(B.bd, B.bd_list, nbd, i)
            c = J.cls[j]
            i, best_load = _a_pick(A, t, c, J.indptr, J.indices, J.order[j])
            if best_load + J.size[j] > J.limit[j]:
                a_rejections += 1
                continue
            _a_add(A, i, j, t, c, J.size[j])
            out.machine[j] = i
            ndirty = mark(A.dirty, A.dirty_list, ndirty, i)
            ntos = _to_add(TO, j, release[j], _b_add(B, j, i, T), ntos)
            nbd = mark(B.bd, B.bd_list, nbd, i)
        # ---- A: re-decide every machine with an event at t or an arrival
        ndirty = cal_take(ca, t, A.dirty, A.dirty_list, ndirty)
        for q in range(ndirty):
            i = A.dirty_list[q]
            A.dirty[i] = False
            _a_advance(A, i, t)
            k = _a_choose(A, i, t)
            if k > 0:
                cal_set(ca, i, t + k, t)
            else:
                cal_del(ca, i)
            nbd = mark(B.bd, B.bd_list, nbd, i)
        ndirty = 0
        # ---- B: completions, timeouts, choices
        nbd = cal_take(cb, t, B.bd, B.bd_list, nbd)
        if TO.fifo:
            for g in range(TO.n_tgrp):
                while True:
                    j = TO.head[g]
                    if j < 0 or release[j] + TO.off[g] > t:
                        break
                    TO.head[g] = TO.next[j]
                    ntos -= 1
                    if not B.alive[j]:
                        continue
                    rows, done, i = _time_out(B, out, rows, j, t)
                    if i >= 0:
                        timeouts += 1
                        nbd = mark(B.bd, B.bd_list, nbd, i)
                if TO.head[g] < 0:
                    TO.tail[g] = -1
        while ntos > 0 and not TO.fifo and TO.key[0] <= t:
            j = TO.job[0]
            ntos = ih_remove(j, ntos, TO.key, TO.job, TO.pos)
            if not B.alive[j]:
                continue
            if J.prefix:
                s = _timeout(release[j], B.cval * T / B.wflow[j])
                if s > t:
                    ntos = ih_push(j, s, ntos, TO.key, TO.job, TO.pos)
                    continue
            rows, done, i = _time_out(B, out, rows, j, t)
            if done >= 0:
                ntos = ih_remove(done, ntos, TO.key, TO.job, TO.pos)
            if i >= 0:
                timeouts += 1
                nbd = mark(B.bd, B.bd_list, nbd, i)
        for q in range(nbd):
            i = B.bd_list[q]
            B.bd[i] = False
            rows, done = _b_sync(B, out, rows, i, t)
            if done >= 0 and not TO.fifo:
                ntos = ih_remove(done, ntos, TO.key, TO.job, TO.pos)
            hopeless_kept += _b_decide(B, A.head, i, t, T)
            pick = B.brun[i]
            if pick >= 0:
                cal_set(cb, i, t + B.brem[pick], t)
            else:
                cal_del(cb, i)
        nbd = 0
    st[_POS], st[_NTOS], st[_ROWS], st[_TPREV] = pos, ntos, rows, tprev
    st[_AREJ], st[_TIMEOUTS], st[_KEPT] = a_rejections, timeouts, hopeless_kept
    Tv[0] = T
    return need


# ---------------------------------------------------------------------- caller
def run_class_rule(alg, inst, order) -> CompiledRun | None:
    """The compiled run of ``wmft-B`` or ``gwmft`` (``alg``) on ``inst`` (None past
    :data:`~._classes.MAX_CLASS_CELLS`: the step path). Sets the algorithm's counters as the
    step path does."""
    tables = class_tables(alg, inst, order)
    if tables is None:
        return None
    n = tables.size.size
    dexp = ((tables.e if alg.by_reject else tables.b) - tables.a).astype(np.int64)
    n_tgrp, tgrp = 0, np.zeros(1, np.int64)
    if not alg.prefix and n:
        wvals, tg = np.unique(tables.wf, return_inverse=True)
        if wvals.size <= MAX_TIMEOUT_QUEUES:
            n_tgrp, tgrp = int(wvals.size), tg.reshape(-1).astype(np.int64)
    jobs = _Jobs(
        tables.release,
        tables.size,
        inst.indptr,
        inst.indices,
        order,
        inst.m,
        tables.cls,
        tables.limit,
        tables.T_at,
        tables.wf,
        dexp,
        bool(alg.prefix),
    )
    cval, no_hopeless, span = float(alg.c), bool(alg.no_hopeless), calendar_span(tables.size)
    rule = _Rule(tables.n_classes, tables.pw, tables.tie, cval, int(alg.dshift), no_hopeless, tgrp, n_tgrp, span)
    machine, completion, late, ti, tf, a_rej, timeouts, kept = class_kernel(jobs, rule)
    alg.counters["a_rejections"] = int(a_rej)
    alg.counters["timeouts"] = int(timeouts)
    if "hopeless_kept" in alg.counters:
        alg.counters["hopeless_kept"] = int(kept)
    if alg.prefix and n:
        alg.T = float(tables.T_at[-1])
    return CompiledRun(machine, completion, ti, tf, late_reject_slot=late)
