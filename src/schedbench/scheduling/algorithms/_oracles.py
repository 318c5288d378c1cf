"""Online stand-ins for the oracle T* (docs/models/rejection-model.md §2.3): what an algorithm that is not given OPT can
know about it from the prefix it has seen. Shared by the algorithms that offer ``oracle``
choices; each keeps T(t) = the smallest power of two ≥ its lower bound LB(t)."""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from schedbench.hall.jit import compiled

__all__ = ["PrefixUnitOpt", "TrivialPrefixBound", "pow2_at_least", "pow2_at_least_nb", "prefix_unit_opt_pow2"]


def _pow2(x):
    mant, exp = math.frexp(x)  # x = mant·2^exp, 0.5 ≤ mant < 1
    return math.ldexp(1.0, exp - 1 if mant == 0.5 else exp)


def pow2_at_least(x):
    """2^⌈log₂ x⌉ for x > 0, exactly (from the float's exponent; below 1 for x < ½);
    elementwise on an array. The one power-of-two rounding of T(t) and of the class rules."""
    if isinstance(x, np.ndarray):
        mant, exp = np.frexp(x)
        return np.ldexp(1.0, np.where(mant == 0.5, exp - 1, exp))
    return _pow2(float(x))


#: :func:`pow2_at_least` of one number inside a compiled kernel.
pow2_at_least_nb = compiled(_pow2)


class TrivialPrefixBound:
    """LB(t) = max(p_max, ⌈Σp/m⌉) over the prefix: a valid lower bound on OPT(prefix) for any
    sizes (weaker than the fractional LP of docs/models/rejection-model.md §2.3 (a), and O(1) per arrival)."""

    def __init__(self, m: int) -> None:
        self.m, self.total, self.pmax = m, 0.0, 0

    def add(self, size: int) -> float:
        self.total += size
        self.pmax = max(self.pmax, size)
        return pow2_at_least(max(float(self.pmax), math.ceil(self.total / self.m)))  # ≥ 1: p_max ≥ 1


class PrefixUnitOpt:
    """Unit jobs: T(t) = 2^⌈log₂ OPT(prefix)⌉ exactly (docs/models/rejection-model.md §2.3 (a), §8.1: for unit sizes the
    prefix optimum is a b-matching). Keeps a feasible assignment of the prefix with machine
    capacity T; each arrival searches one augmenting path (BFS), and T doubles while none
    exists — so T is a power of two and T/2 < OPT(prefix) ≤ T at every time."""

    def __init__(self, m: int) -> None:
        self.T = 1
        self.cnt = [0] * m
        self.jobs_on: list[list[int]] = [[] for _ in range(m)]
        self.assign: dict[int, int] = {}
        self.elig: dict[int, list[int]] = {}

    def add(self, j: int, eligible) -> int:
        self.elig[j] = [int(i) for i in eligible]
        while not self._augment(j):
            self.T *= 2
        return self.T

    def _augment(self, j: int) -> bool:
        parent_m: dict[int, int] = {}
        seen = {j}
        queue = [j]
        for u in queue:
            for i in self.elig[u]:
                if i in parent_m:
                    continue
                parent_m[i] = u
                if self.cnt[i] < self.T:
                    self._flip(i, parent_m)
                    return True
                for v in self.jobs_on[i]:
                    if v not in seen:
                        seen.add(v)
                        queue.append(v)
        return False

    def _flip(self, free: int, parent_m: dict[int, int]) -> None:
        f = free
        while True:
            u = parent_m[f]
            old = self.assign.get(u)
            self.assign[u] = f
            self.jobs_on[f].append(u)
            self.cnt[f] += 1
            if old is None:
                return
            self.jobs_on[old].remove(u)
            self.cnt[old] -= 1
            f = old


# ---------------------------------------------------------------------- the prefix optimum of unit jobs, compiled
_NEXT, _START, _END = 0, 1, 2  # the fields of a job's row in the b-matching's ``rec``

#: The prefix b-matching: per job (arrival position) its row of ``rec`` (list link, range of its
#: eligible machines in ``elig``) and machine (``assign``); per machine its list (``mhead``) and
#: count (``cnt``); the machines with room (``room``, their places ``where``).
_Matching = namedtuple("_Matching", "elig rec assign mhead cnt room where")
#: The two searches of :func:`_augment`: forward (queue ``fq``, marks ``fmark``, the job that
#: would move into each machine ``pjob`` and its predecessor ``ppred``) and backward (``rq``,
#: ``rmark``, ``rjob``, ``rsucc``), and the machines' incidence lists (``inc_ptr``, ``inc``).
_Search = namedtuple("_Search", "fq fmark pjob ppred rq rmark rjob rsucc inc_ptr inc")


@compiled(inline="always")
def _attach(M, v, i):
    """Job (position) v joins the front of machine i's list in the prefix b-matching."""
    M.assign[v] = i
    M.rec[v, _NEXT] = M.mhead[i]
    M.mhead[i] = v
    M.cnt[i] += 1


@compiled(inline="always")
def _move(M, v, p, f):
    """Job (position) v leaves its machine's list, where it follows job p (−1: first), for
    machine f's. (Singly linked lists: a back link, written at every arrival, costs more than
    the searches need.)"""
    i = M.assign[v]
    if p >= 0:
        M.rec[p, _NEXT] = M.rec[v, _NEXT]
    else:
        M.mhead[i] = M.rec[v, _NEXT]
    M.cnt[i] -= 1
    _attach(M, v, f)


@compiled
def _incidence(M, S):
    """Fills ``S.inc_ptr``, ``S.inc``: per machine, the jobs (positions, increasing) eligible on it (CSR)."""
    elig, rec, ptr, jobs = M.elig, M.rec, S.inc_ptr, S.inc
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
def _augment(M, S, pos, T, nroom, stamp):
    """Add job ``pos`` (arrival position) to the prefix b-matching with capacity T per machine by
    one augmenting path, or return −1 when none exists (then OPT(prefix) > T; nothing
    changed). The path is searched over *machines*: i leads to c when a job w assigned to i
    is eligible on c (w can move to c). A forward breadth-first search starts from the job's
    eligible machines (all full) and stops at the first machine with room; ``pjob[c]`` is the
    job that would move into c (−1 for the job's own machines) and ``ppred[c]`` the job before
    it in its machine's list. When it has scanned more than
    ``nroom`` + :data:`_BACKWARD_AFTER` jobs (few machines with room, so a forward search
    alone would cover much of the graph), a backward breadth-first search starts from the
    ``nroom`` machines with room (``M.room``) over the jobs eligible on a machine
    (``inc_ptr``, ``inc``, filled then: ``inc_ptr[m]`` is 0 before): ``rjob[i]`` is the job on i that would move to
    ``rsucc[i]`` (−1 at a machine with room); the two alternate by work done and stop at the
    first machine both reached, the only one on both paths, so the joined path is simple.
    Either search running out proves that no path exists. Whether a path exists does not
    depend on which feasible assignment of the earlier jobs is kept, so neither does T
    (``PrefixUnitOpt`` searches jobs, from the job only, and keeps another
    assignment, with the same answers). Returns the machine that gained a job (the path's
    end) or −1. ``fmark``/``rmark`` equal ``stamp`` at the machines each search reached."""
    elig, rec, cnt = M.elig, M.rec, M.cnt
    fq, fmark, pjob, ppred = S.fq, S.fmark, S.pjob, S.ppred
    rq, rmark, rjob, rsucc = S.rq, S.rmark, S.rjob, S.rsucc
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
            w = M.mhead[i]
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
                if S.inc_ptr[-1] == 0:
                    _incidence(M, S)
                rn = 0
                for q in range(nroom):
                    c = M.room[q]
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
            for q in range(S.inc_ptr[c], S.inc_ptr[c + 1]):
                w = S.inc[q]
                if w >= pos:  # not in the prefix yet (increasing positions)
                    break
                rwork += 1
                i = M.assign[w]
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
        w = M.mhead[y]
        while w != v:
            p = w
            w = rec[w, _NEXT]
        z = rsucc[y]
        _move(M, v, p, z)
        y = z
    f = x
    while True:
        v = pjob[f]
        if v < 0:
            _attach(M, pos, f)
            return y
        old = M.assign[v]
        _move(M, v, ppred[f], f)
        f = old


@compiled
def prefix_unit_opt_pow2(indptr, indices, order, m):
    """For each arrival position t, T(t) = the power of two ≥ OPT(jobs order[:t+1]) (at least
    1) for unit jobs: the values of :meth:`PrefixUnitOpt.add`. Keeps a feasible
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
    M = _Matching(
        elig, rec, np.full(n, -1, np.int64), np.full(m, -1, np.int64), np.zeros(m, np.int64), np.arange(m), np.arange(m)
    )
    S = _Search(
        np.empty(m, np.int64),
        np.zeros(m, np.int64),
        np.empty(m, np.int64),
        np.empty(m, np.int64),
        np.empty(m, np.int64),
        np.zeros(m, np.int64),
        np.empty(m, np.int64),
        np.empty(m, np.int64),
        np.zeros(m + 1, np.int64),  # filled at the first backward search
        np.empty(total, np.int64),
    )
    cnt, room, where = M.cnt, M.room, M.where
    nroom = m
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
                gained = _augment(M, S, pos, T, nroom, stamp)
            if gained < 0:  # a new phase: every machine has room again
                T *= 2
                nroom = m
                for i in range(m):
                    room[i] = i
                    where[i] = i
                gained = best
                _attach(M, pos, best)
        else:
            _attach(M, pos, best)
        if cnt[gained] == T:  # full: leaves the machines with room
            nroom -= 1
            last = room[nroom]
            room[where[gained]] = last
            where[last] = where[gained]
        out[pos] = T
    return out
