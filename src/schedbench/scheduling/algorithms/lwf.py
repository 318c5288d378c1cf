"""LWF per machine (Longest Wait First by delay factor): the comparator B10-LWF of
``docs/models/rejection-model.md`` §7, speed 1+ε — the **known-bad** rule.

Chekuri–Im–Moseley (ToC 8, 2012) show that the greedy "modeled after LWF" is not
O(1)-competitive for maximum delay factor at any speed s ≥ 1, even for uniform-size jobs [Q];
it is run next to the B10 proxy (``ssf-edf``), which should beat it on adversarial inputs.

* dispatch as B7 (:mod:`~schedbench.scheduling.algorithms.edf`): least remaining work among the
  eligible machines, ties to the lowest index;
* each machine runs, preemptively, the job with the largest current delay factor
  (t − r_j)/S_j, S_j = T/w_j (w_j the problem's flow weight), ties by release then job id; the
  order is re-evaluated in every slot where something changes on the machine;
* nothing is rejected; the engine applies speed 1+ε.

A fixed T (``opt`` or ``none``) scales every S_j alike, so the order does not depend on it
(``oracle`` is kept for a uniform parameter grid with ``edf``); with ``running`` each job's S_j =
T(r_j)/w_j uses the estimate at its arrival (``edf``'s running maximum of w·p), which can reorder.
For MaxFlowTime with a fixed T every S_j = T and LWF is FIFO by release.

Implementation: while every job ever sent to a machine has the same S, the order is by
(r_j, id) and static (no reorder, no wake-up: MaxFlowTime's case). Otherwise the order of a
machine changes over time; it is re-sorted in each slot where jobs arrive on it, in the slot in
which its head completes, and in the first slot where some job's delay factor overtakes the
head's (a crossing of two lines in t), asking the engine for those wake-ups. This gives the
same schedule as re-sorting every machine in every slot (tested against that reference).

Compiled path: :func:`lwf_rule` on the machine core (:mod:`~schedbench.scheduling.machines`),
the same re-sorts at the same slots (every problem and parameter).
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms.base import JobView, SlotPlan
from schedbench.scheduling.algorithms.edf import Edf, least_work_pick
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class Lwf(Edf):
    """B10-LWF: B7 dispatch; per machine, the largest (t − r_j)/S_j first (known-bad rule)."""

    name = "lwf"
    rule_label = "R"
    summary = "least remaining work; per machine the largest (t − r)/S first"
    bound = "not O(1) at any speed"
    cites = "cim"
    section = ""
    reference = (
        "Chekuri–Im–Moseley ToC 8 (2012), LWF lower bound (not O(1) at any speed); "
        "docs/models/rejection-model.md §7 B10-LWF comparator"
    )

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.S: dict[int, float] = {}
        self.rel: dict[int, int] = {}
        self.one_slack: list[float | None] = [None] * self.m  # the S of every job sent to i, or nan if mixed
        self.events: list[tuple[int, int, int]] = []  # (slot, machine, version): re-sort i at that slot
        self.version = [0] * self.m
        self.asked: set[int] = set()  # wake-up slots already asked of the engine

    def on_arrival(self, job: JobView, view) -> int:
        self.observe(job)  # oracle="running": T(t) raised before the job's slack is fixed
        t = view.time
        i = self.work.pick(job.eligible, t)
        self.work.add(i, job.size, t)
        S = self.slack(job)
        self.S[job.id], self.rel[job.id] = S, job.release
        one = self.one_slack[i]
        if one is None:
            self.one_slack[i] = S
        elif one != S:  # also when already mixed (nan)
            self.one_slack[i] = math.nan
            self.touched.add(i)
        # else one S on this machine: FIFO by (r, id), the engine's append order
        return i

    def _resort(self, i: int, view, plan: SlotPlan) -> None:
        t = view.time
        q = view.queue(i)
        if len(q) <= 1:
            return
        S, rel = self.S, self.rel
        order = sorted(q, key=lambda j: (-(t - rel[j]) / S[j], rel[j], j))
        if order != list(q):
            plan.priority[i] = order
        one = self.one_slack[i]
        if one is not None and not math.isnan(one):
            return
        # Next re-sort: the slot in which the head completes (the rest of that slot runs the
        # order sorted at its start, as if re-sorted every slot), or the first slot where
        # another job's delay factor overtakes the head's.
        h = order[0]
        nxt = math.floor(t + view.remaining(h) / view.speed + 1e-9)
        for j in order[1:]:
            if S[j] < S[h]:  # j's delay factor grows faster: the lines cross at t*
                cross = (rel[j] / S[j] - rel[h] / S[h]) / (1.0 / S[j] - 1.0 / S[h])
                nxt = min(nxt, math.ceil(cross - 1e-9))
        nxt = max(nxt, t + 1)
        self.version[i] += 1
        heapq.heappush(self.events, (nxt, i, self.version[i]))

    def on_slot(self, view) -> SlotPlan | None:
        t = view.time
        ev = self.events
        while ev and ev[0][0] <= t:
            _, i, ver = heapq.heappop(ev)
            if ver == self.version[i]:
                self.touched.add(i)
        if not self.touched:
            return None
        plan = SlotPlan()
        for i in sorted(self.touched):
            self._resort(i, view, plan)
        self.touched.clear()
        while ev and ev[0][2] != self.version[ev[0][1]]:
            heapq.heappop(ev)  # stale
        self.asked = {s for s in self.asked if s > t}
        if ev and ev[0][0] not in self.asked:
            plan.wake_at = ev[0][0]
            self.asked.add(ev[0][0])
        return plan

    def compiled_run(self, inst, order):
        slack = np.asarray(self.slacks(inst, order), np.float64)
        return mc.run(lwf_rule, inst, order, type(self).speed_for(self.eps), slack)


# ---------------------------------------------------------------------- compiled path
# Re-sort events (slot, machine, version) in a binary heap on the slot; the order among equal
# slots is irrelevant (the machines of one slot are collected into a set).
@compiled(inline="always")
def _push(h, size, a, b, c):
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
        h[k] = h[p]
        k = p
    _place(h, k, a, b, c)
    return h, size + 1


@compiled(inline="always")
def _pop(h, size):
    """Remove the top row (read it at h[0] first); returns the new size."""
    size -= 1
    if size == 0:
        return 0
    x0, x1, x2 = h[size, 0], h[size, 1], h[size, 2]
    k = 0
    while True:
        a = 2 * k + 1
        if a >= size:
            break
        b = a + 1
        c = b if (b < size and h[b, 0] < h[a, 0]) else a
        if h[c, 0] >= x0:
            break
        h[k] = h[c]
        k = c
    _place(h, k, x0, x1, x2)
    return size


@compiled(inline="always")
def _place(h, k, a, b, c):
    """Write the row (a, b, c) at h[k]: where a sift of :func:`_push` or :func:`_pop` ends."""
    h[k, 0] = a
    h[k, 1] = b
    h[k, 2] = c


@compiled
def _resort(machines, i, t, slack, buf, keys):
    """Re-sort machine i's FIFO queue at slot t by (−(t − r_j)/S_j, r_j, position), largest delay
    factor first (:meth:`Lwf._resort`). Returns the slot of the next re-sort (its head's
    completion or the first crossing of two delay-factor lines)."""
    q = machines.qlen[i]
    nxt, release, s = machines.nxt, machines.release, machines.speed
    k = 0
    j = machines.qhead[i]
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
    mc.set_order(machines, i, buf[:q])
    h = buf[0]
    nx = np.floor(t + machines.rem[h] / s + 1e-9)
    for a in range(1, q):
        j = buf[a]
        if slack[j] < slack[h]:  # j's delay factor grows faster: the lines cross at t*
            rj, rh = float(release[j]), float(release[h])
            cross = (rj / slack[j] - rh / slack[h]) / (1.0 / slack[j] - 1.0 / slack[h])
            c = np.ceil(cross - 1e-9)
            if c < nx:
                nx = c
    return max(np.int64(nx), np.int64(t) + 1)


@compiled
def lwf_rule(machines, slack):
    """LWF with per-position slacks S: the EDF family's least-work dispatch; per machine the
    largest current delay factor first, re-sorted where the step path re-sorts — at arrivals on
    a machine that has seen two slacks, in the slot its head completes, and at the first crossing
    of two delay-factor lines (events from a heap, stale ones skipped by a version per machine)."""
    n, m, s = machines.n, machines.m, machines.speed
    release = machines.release
    work = np.zeros(m)
    stamp = np.zeros(m)
    one = np.full(m, np.nan)  # the one slack of every job sent to i (nan: none yet)
    seen = np.zeros(m, np.bool_)
    mixed = np.zeros(m, np.bool_)
    version = np.zeros(m, np.int64)
    touched = np.zeros(m, np.bool_)
    touched_list = np.empty(m, np.int64)
    ev = np.empty((16, 3), np.int64)
    nev = 0
    buf = np.empty(n, np.int64)
    keys = np.empty(n, np.float64)
    pos = 0
    never = np.int64(2**62)
    while pos < n or nev > 0:
        while nev > 0 and ev[0, 2] != version[ev[0, 1]]:
            nev = _pop(ev, nev)
        t = never
        if pos < n:
            t = release[pos]
        if nev > 0 and ev[0, 0] < t:
            t = ev[0, 0]
        if t == never:
            break
        tf = float(t)
        nt = 0
        while pos < n and release[pos] == t:
            i = least_work_pick(mc.eligible(machines, pos), work, stamp, s, tf, machines.size[pos])
            if not seen[i]:
                seen[i] = True
                one[i] = slack[pos]
            elif mixed[i] or one[i] != slack[pos]:
                mixed[i] = True
                if not touched[i]:
                    touched[i] = True
                    touched_list[nt] = i
                    nt += 1
            mc.advance(machines, i, tf)
            mc.dispatch(machines, pos, i)
            pos += 1
        while nev > 0 and ev[0, 0] <= t:
            i, v = ev[0, 1], ev[0, 2]
            nev = _pop(ev, nev)
            if v == version[i] and not touched[i]:
                touched[i] = True
                touched_list[nt] = i
                nt += 1
        for a in range(nt):
            i = touched_list[a]
            touched[i] = False
            mc.advance(machines, i, tf)
            if machines.qlen[i] <= 1:
                continue  # nothing to order (the step path schedules no re-sort either)
            slot = _resort(machines, i, tf, slack, buf, keys)
            if mixed[i]:
                version[i] += 1
                ev, nev = _push(ev, nev, slot, i, version[i])
