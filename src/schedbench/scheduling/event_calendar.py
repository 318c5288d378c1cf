"""The event calendar of the compiled class rules (``wmft-A``, ``wmft-B``, ``gwmft``): each
machine's next event (at most one), found in time order, and the indexed heap it and B's
timeouts use. Part of the machine core (:mod:`~schedbench.scheduling.machines` processes, this
says when a rule must look again); integer slots, as the rejection model's unit-speed machines.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from schedbench.hall.jit import compiled

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
    "ih_push",
    "ih_remove",
]

NEVER = np.int64(2**62)  # a slot no event reaches


def calendar_span(size) -> int:
    """The ring size of a calendar for jobs of these integer sizes: a power of two above the
    largest size (at most 8192, at least 32), so a completion falls in the ring."""
    smax = int(size.max()) if size.size else 1
    return 1 << max(4, min(smax, 4096).bit_length())


# ---------------------------------------------------------------------- indexed heap
# Items (machines of a calendar, or B's jobs with a timeout) keyed by a slot, the smallest on
# top; ``pos[x]`` is item x's place (−1: not in the heap), so an item leaves at once (a job that
# completes before its timeout; a machine whose event moves).
@compiled(inline="always")
def _ih_swap(a, b, key, job, pos):
    """Entries a and b of the heap change places."""
    key[a], key[b] = key[b], key[a]
    job[a], job[b] = job[b], job[a]
    pos[job[a]] = a
    pos[job[b]] = b


@compiled(inline="always")
def _ih_up(k, key, job, pos):
    while k > 0:
        p = (k - 1) >> 1
        if key[p] <= key[k]:
            break
        _ih_swap(p, k, key, job, pos)
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
        _ih_swap(c, k, key, job, pos)
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
    size -= 1
    if k < size:  # the last entry fills the hole, then finds its place
        _ih_swap(k, size, key, job, pos)
        x = job[k]
        _ih_up(k, key, job, pos)
        _ih_down(pos[x], size, key, job, pos)
    pos[j] = -1
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
