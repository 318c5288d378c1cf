"""The machine core: how the rejection model's machines process their jobs, written once
(``docs/models/rejection-model.md`` §1.3) for every compiled rule, the suite's and a user's.

m non-migratory, preemptive machines, each doing ``speed`` units of work per unit of time
along its own order of unfinished jobs: first in, first out (:data:`FIFO`), the smallest static
key first (:data:`BY_KEY`), or the least remaining work first (:data:`SRPT`); ties by arrival
position, the engine's job id. Or the rule names the job each machine runs (:data:`CHOSEN`,
:func:`choose`): it runs that job alone until it completes, then idles until the rule chooses
again (a rule that keeps its own queues and decides at every completion, as the class rules).
A job is done once its remaining work is at most :data:`~schedbench.scheduling.model.WORK_TOL`
· max(1, p) — the engine's tolerance, so at a fractional speed both paths end a job at the
same instant.

The state of a run is one :class:`Machines` record (a numba structref: every compiled function
takes the record, never a list of its arrays). Jobs are numbered by **arrival position**
(``order[pos]`` is the instance's job). A compiled rule is a function of the record that goes
through the arrivals and decides; the core does the rest. It offers :func:`arrive` (the instant
of arrival ``pos``, its eligible machines brought up to it: machines are processed lazily, only
when asked about or given a job, so a run costs jobs and events, never m × horizon),
:func:`eligible` (a view), the dispatch rules most rules use with the engine's ties
(:func:`shortest_queue`, :func:`least_work`), :func:`dispatch` (a keyed machine preempts its
running job when the new one comes first), :func:`choose`, :func:`advance`, :func:`remove` (a
late rejection), and what the step path's ``view.remaining_work(i)`` and ``len(view.queue(i))``
say once the machine is brought up to the present (:func:`remaining_work`,
:func:`queue_length`). With job groups (``run(..., groups=)``, a class rule's classes) the same
processing keeps ``group_work[i, g]``, machine i's work left of group g.

:func:`run` builds the record from an instance (:func:`record`; a rule may build a second,
untraced one for a background simulation, as B does for A), calls the rule, runs every machine
empty and returns the :class:`~schedbench.scheduling.compiled.CompiledRun` the validator
checks. The trace has one row per maximal interval of one job on one machine.

The engine's step path (Python rules, plug-ins) drives the same record one decision at a time
through :class:`StepMachines`: jobs added as they are released, FIFO machines whose order (a
linked list, ``nxt`` forward and ``prv`` back) the algorithm rearranges — :func:`remove` (a late
rejection), :func:`to_front`, :func:`set_order` (a priority) — and the same :func:`advance`,
completion, :func:`drain` and trace rows as the compiled rules.

Rules are compiled with :func:`schedbench.hall.jit.compiled`: editing a rule's file or this one
recompiles what depends on it, with no cache to clear by hand.

The hot functions (:func:`arrive`, :func:`eligible`, :func:`advance`, :func:`dispatch`,
:func:`to_front` …) are inlined into their callers, and the record's fields compile also without
numba's reference counting (:func:`_field_access`): a rule whose event loop reads the record at
every event (the class rules) runs that loop ``_nrt=False``, allocating beforehand, and counts
nothing.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import types
from numba.core import cgutils, imputils
from numba.core.imputils import lower_getattr, lower_setattr
from numba.core.runtime.nrtdynmod import _meminfo_struct_type  # (refct, dtor, dtor_info, data, size)
from numba.experimental import structref

from schedbench.hall.jit import compiled
from schedbench.scheduling.compiled import CompiledRun
from schedbench.scheduling.model import WORK_TOL

__all__ = [
    "FIFO",
    "BY_KEY",
    "SRPT",
    "CHOSEN",
    "Machines",
    "StepMachines",
    "run",
    "record",
    "arrive",
    "eligible",
    "advance",
    "dispatch",
    "choose",
    "remove",
    "to_front",
    "set_order",
    "queue_of",
    "drain",
    "remaining_work",
    "queue_length",
    "shortest_queue",
    "least_work",
    "snap_work",
    "static_rank",
]

FIFO, BY_KEY, SRPT, CHOSEN = 0, 1, 2, 3  # the order in which a machine runs its jobs

_SNAP = 2.0**20  # SRPT compares remaining work on a grid of 2^-20 units (snap_work)
_SNAP_MAX = 2.0**32


@structref.register
class MachinesType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Machines(structref.StructRefProxy):
    """A run's machines and jobs (see the module docstring); built by :func:`run`."""


# The record's fields, a group a line (the order of ``_new``'s arguments):
# - the instance, jobs by arrival position;
# - per job: remaining work, completion instant, machine; ``key`` (BY_KEY / SRPT: the order key;
#   SRPT: snapped remaining work) and ``ids`` (0..n−1, the heap's ties); a FIFO machine's list
#   (``nxt``, and ``prv``: the job before, stale at the head, for moves and removals); a keyed
#   machine's heap links (``left``, ``right``);
# - per machine: ``qhead`` (a FIFO machine's first job, a keyed machine's heap root), ``qtail``,
#   ``qlen``, ``run_job`` (the job a CHOSEN machine runs, or a keyed machine's job in service, out
#   of its heap), ``t_last`` (the instant it is brought up to), ``work_left``, ``last_row``;
# - job groups (a class rule's classes): per job its group, per (machine, group) the work left as
#   of ``t_last``; ``grouped`` False: not kept (one column, never written);
# - the trace: ``ti`` (machine, job), ``tf`` (start, end, work), ``rows`` written; ``traced``
#   False: none kept (a rule's background simulation, e.g. B's algorithm A).
_FIELDS = (
    "n m speed rule order release size indptr indices "
    "rem completion machine key ids nxt prv left right "
    "qhead qtail qlen run_job t_last work_left last_row "
    "grouped group group_work "
    "traced ti tf rows"
).split()
structref.define_proxy(Machines, MachinesType, _FIELDS)


def _field_access(attr: str) -> None:
    """Reads and writes of the record's field ``attr`` that also compile without the reference
    counting runtime (``_nrt=False``). numba's own read of a structref's field needs that runtime
    for the data pointer, and counts a reference for every array read (an atomic add and subtract:
    about a fifth of a class rule's time in its event loop when every event reads the record).
    Here the data pointer is read inline; with the runtime on, the same code as numba's (a read
    counts its reference, a write its old and new values). A policy's hot loop compiled
    ``_nrt=False`` with the core's ``inline="always"`` functions then counts nothing; it may not
    write an array field (no count to keep: refused)."""

    def data(context, builder, typ, val):
        mi = cgutils.create_struct_proxy(typ)(context, builder, value=val).meminfo
        ptr = builder.load(cgutils.gep(builder, builder.bitcast(mi, _meminfo_struct_type.as_pointer()), 0, 3))
        valtype = typ.get_data_type()
        ptr = builder.bitcast(ptr, context.data_model_manager[valtype].get_value_type().as_pointer())
        return cgutils.create_struct_proxy(valtype)(context, builder, ref=ptr)

    @lower_getattr(MachinesType, attr)
    def get(context, builder, typ, val):
        return imputils.impl_ret_borrowed(
            context, builder, typ.field_dict[attr], getattr(data(context, builder, typ, val), attr)
        )

    @lower_setattr(MachinesType, attr)
    def put(context, builder, sig, args):
        typ, vt = sig.args
        ft = typ.field_dict[attr]
        fields = data(context, builder, typ, args[0])
        value = context.cast(builder, args[1], vt, ft)
        if context.enable_nrt:
            context.nrt.incref(builder, ft, value)
            context.nrt.decref(builder, ft, getattr(fields, attr))
        elif context.data_model_manager[ft].contains_nrt_meminfo():
            raise TypeError(f"Machines.{attr}: an array field is written only with reference counting on")
        setattr(fields, attr, value)


for _name in _FIELDS:
    _field_access(_name)


@compiled
def _new(order, release_by_job, size_by_job, indptr, indices, m, speed, rule, key, group, n_groups, traced):
    n = order.shape[0]
    release = release_by_job[order].astype(np.int64)
    size = size_by_job[order].astype(np.float64)
    heap = rule == BY_KEY or rule == SRPT
    # trace rows: FIFO, a job runs in one piece; keyed, an arrival preempts ≤ 1 job; CHOSEN, room
    # for 4 pieces a job (pages not written are never touched; grown beyond)
    rows = ((4 * n if rule == CHOSEN else 2 * n if heap else n) if traced else 0) + 16
    nh = n if heap else 1  # the heap's arrays (one entry when unused)
    nf = n if rule == FIFO else 1  # the FIFO lists' arrays
    order_key = (size.copy() if rule == SRPT else key.astype(np.float64)) if heap else np.zeros(1)
    return Machines(
        n,
        m,
        float(speed),
        rule,
        order,
        release,
        size,
        indptr,
        indices,
        size.copy(),
        np.full(n, np.nan),
        np.full(n, -1, np.int64),
        order_key,
        np.arange(nh),
        np.full(n, -1, np.int64),
        np.full(nf, -1, np.int64),
        np.full(nh, -1, np.int64),
        np.full(nh, -1, np.int64),
        np.full(m, -1, np.int64),
        np.full(m, -1, np.int64),
        np.zeros(m, np.int64),
        np.full(m, -1, np.int64),
        np.zeros(m),
        np.zeros(m),
        np.full(m, -1, np.int64),
        n_groups > 0,
        group,
        np.zeros((m, max(n_groups, 1))),
        traced,
        np.empty((rows, 2), np.int64),
        np.empty((rows, 3), np.float64),
        0,
    )


# ---------------------------------------------------------------------- trace rows
@compiled(_nrt=True)  # with reference counting also when called from a loop without
def _grow_trace(mc):
    """Twice the room in the run's trace (a call of its own: the inlined hot paths allocate nothing)."""
    rows = mc.rows
    ti = np.empty((2 * rows + 16, 2), np.int64)
    tf = np.empty((2 * rows + 16, 3), np.float64)
    ti[:rows] = mc.ti
    tf[:rows] = mc.tf
    mc.ti, mc.tf = ti, tf


@compiled(inline="always")
def _trace(mc, i, j, a, b, w):
    """Work ``w`` of job j on machine i in [a, b] into the run's trace (nothing when not
    ``traced``): ``ti`` (machine, job) and ``tf`` (start, end, work). Extends the machine's last
    row (``last_row[i]``) when the same job simply continues (a row is a maximal interval); else
    a new row (the trace grows when full)."""
    if not mc.traced:
        return
    ti, tf, k = mc.ti, mc.tf, mc.last_row[i]
    if k >= 0 and ti[k, 1] == j and tf[k, 1] == a:
        tf[k, 1] = b
        tf[k, 2] += w
        return
    k = mc.rows
    if k == ti.shape[0]:
        _grow_trace(mc)
        ti, tf = mc.ti, mc.tf
    mc.last_row[i] = k
    ti[k, 0] = i
    ti[k, 1] = j
    tf[k, 0] = a
    tf[k, 1] = b
    tf[k, 2] = w
    mc.rows = k + 1


# ---------------------------------------------------------------------- skew heaps of jobs
# Jobs linked by ``left``/``right`` (−1: none), the smallest (k1, k2, k3) at the root: a keyed
# machine's waiting jobs (key, id, id), A's SRPT queues and B's density heaps of the class rules.
@compiled(inline="always")
def _less3(x, y, k1, k2, k3):
    if k1[x] != k1[y]:
        return k1[x] < k1[y]
    if k2[x] != k2[y]:
        return k2[x] < k2[y]
    return k3[x] < k3[y]


@compiled(inline="always")
def heap_meld(a, b, k1, k2, k3, left, right):
    """Top-down skew-heap meld of the heaps rooted at a and b (−1: empty); returns the root."""
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
def heap_pop(root, k1, k2, k3, left, right):
    """The heap without its root (returns the new root); the old root's links are cleared."""
    new = heap_meld(left[root], right[root], k1, k2, k3, left, right)
    left[root] = -1
    right[root] = -1
    return new


def snap_work(x: float) -> float:
    """Remaining work rounded to the nearest multiple of 2^-20 (below 2^32 units). At speed 1 + ε
    a remaining work is an integer minus a multiple of s, so two values equal in exact arithmetic
    can differ in the last bits of their floats; rounding makes them the tie they are (then
    broken by job id) on the step path and the compiled path alike (:func:`snap`)."""
    if abs(x) < _SNAP_MAX:
        return round(x * _SNAP) / _SNAP
    return x


snap = compiled(snap_work)  # the same rounding in compiled rules


# ---------------------------------------------------------------------- processing
@compiled(inline="always")
def _head(mc, i):
    """The job machine i runs now (−1: idle); a keyed machine takes its heap's top."""
    if mc.rule == FIFO:
        return mc.qhead[i]
    j = mc.run_job[i]
    if j < 0:
        j = mc.qhead[i]  # a keyed machine's heap root
        if j < 0:
            return -1
        mc.qhead[i] = heap_pop(j, mc.key, mc.ids, mc.ids, mc.left, mc.right)
        mc.run_job[i] = j
    return j


@compiled(inline="always")
def _add_work(work_left, group_work, group, grouped, i, j, w):
    """Work w (negative: work done or taken away) of job j onto machine i's ``work_left`` and,
    when groups are kept (``grouped``), its group's ``group_work`` (the record's arrays, read
    once by the caller: a field read of a structref costs a reference count)."""
    work_left[i] += w
    if grouped:
        group_work[i, group[j]] += w


@compiled(inline="always")
def _complete(mc, i, j, t):
    mc.rem[j] = 0.0
    mc.completion[j] = t
    mc.qlen[i] -= 1
    if mc.rule == FIFO:
        mc.qhead[i] = mc.nxt[j]
    else:
        mc.run_job[i] = -1


@compiled(inline="always")
def _process(mc, i, j, cur, t):
    """Job j runs on machine i from instant ``cur`` toward t; returns the instant it stops (its
    completion, or t)."""
    s, rem = mc.speed, mc.rem
    work_left, gw, group, grouped = mc.work_left, mc.group_work, mc.group, mc.grouped
    r = rem[j]
    tol = WORK_TOL * max(1.0, mc.size[j])
    if r <= (t - cur) * s + tol:
        end = min(cur + r / s, t)
        _trace(mc, i, j, cur, end, r)
        _add_work(work_left, gw, group, grouped, i, j, -r)
        _complete(mc, i, j, end)
        return end
    w = (t - cur) * s
    _trace(mc, i, j, cur, t, w)
    rem[j] = r - w
    _add_work(work_left, gw, group, grouped, i, j, -w)
    if rem[j] <= tol:  # a float residue: the job is done
        _add_work(work_left, gw, group, grouped, i, j, -rem[j])
        _trace(mc, i, j, t, t, rem[j])
        _complete(mc, i, j, t)
    return t


@compiled(inline="always")
def advance(mc, i, t):
    """Machine i processes its jobs from ``t_last[i]`` up to instant t (``Engine._advance``); a
    CHOSEN machine its chosen job alone, then idles."""
    cur = mc.t_last[i]
    if t <= cur:
        return
    if mc.rule == CHOSEN:
        if mc.run_job[i] >= 0:
            _process(mc, i, mc.run_job[i], cur, t)
    else:
        while cur < t:
            j = _head(mc, i)
            if j < 0:
                break
            cur = _process(mc, i, j, cur, t)
    if mc.qlen[i] == 0:
        mc.work_left[i] = 0.0
    mc.t_last[i] = t


@compiled(inline="always")
def dispatch(mc, pos, i):
    """Job ``pos`` joins machine i (brought up to the job's instant by the caller: :func:`arrive`
    or :func:`advance`): at the end of a FIFO queue, or into a keyed machine's heap, preempting
    the running job when the new one comes first (SRPT: by the running job's snapped remaining
    work); a CHOSEN machine runs it once the rule chooses it."""
    j = pos
    mc.machine[j] = i
    mc.qlen[i] += 1
    _add_work(mc.work_left, mc.group_work, mc.group, mc.grouped, i, j, mc.rem[j])
    if mc.rule == CHOSEN:
        return
    if mc.rule == FIFO:
        if mc.qhead[i] < 0:
            mc.qhead[i] = j
            mc.prv[j] = -1
        else:
            mc.nxt[mc.qtail[i]] = j
            mc.prv[j] = mc.qtail[i]
        mc.nxt[j] = -1
        mc.qtail[i] = j
        return
    key, ids, left, right = mc.key, mc.ids, mc.left, mc.right
    h = mc.run_job[i]
    if h >= 0:  # the running job goes back to the heap if the new one comes first
        if mc.rule == SRPT:
            key[h] = snap(mc.rem[h])
        if _less3(j, h, key, ids, ids):
            mc.run_job[i] = -1
            mc.qhead[i] = heap_meld(mc.qhead[i], h, key, ids, ids, left, right)
    mc.qhead[i] = heap_meld(mc.qhead[i], j, key, ids, ids, left, right)


@compiled(inline="always")
def choose(mc, i, j):
    """A CHOSEN machine i runs job j (one of its unfinished jobs; −1: idle) from its ``t_last``
    (brought up to the instant by the caller) until j completes or the rule chooses again."""
    mc.run_job[i] = j


# ---------------------------------------------------------------------- a FIFO machine's order
# The list qhead → nxt → … → qtail is the machine's processing order: appended to by
# :func:`dispatch`, popped at its head by completion, and rearranged by the step path's decisions
# (a late rejection, an algorithm's priority) through the three functions below. ``prv[j]`` is
# j's predecessor while j is not the head (a completion leaves the new head's ``prv`` stale: not
# written, so the compiled rules pay nothing for it); ``nxt[j] = REMOVED`` marks a removed job.
REMOVED = -2


@compiled(inline="always")
def _unlink(mc, j):
    """Job j out of its machine's list."""
    i, b = mc.machine[j], mc.nxt[j]
    a = -1 if mc.qhead[i] == j else mc.prv[j]
    if a >= 0:
        mc.nxt[a] = b
    else:
        mc.qhead[i] = b
    if b >= 0:
        mc.prv[b] = a
    else:
        mc.qtail[i] = a


@compiled
def remove(mc, j):
    """Job j, unfinished, leaves its machine (a late rejection; the machine brought up to the
    instant by the caller): out of the order (a CHOSEN machine running it idles), its remaining
    work off the machine's."""
    i = mc.machine[j]
    if mc.rule == CHOSEN:
        if mc.run_job[i] == j:
            mc.run_job[i] = -1
    else:
        _unlink(mc, j)
        mc.nxt[j] = REMOVED
    mc.qlen[i] -= 1
    _add_work(mc.work_left, mc.group_work, mc.group, mc.grouped, i, j, -mc.rem[j])


@compiled
def set_order(mc, i, jobs):
    """Machine i runs its unfinished jobs in the order ``jobs`` (all of them, each once)."""
    q = jobs.shape[0]
    mc.qhead[i] = jobs[0] if q else -1
    mc.qtail[i] = jobs[q - 1] if q else -1
    for a in range(q):
        mc.prv[jobs[a]] = jobs[a - 1] if a > 0 else -1
        mc.nxt[jobs[a]] = jobs[a + 1] if a + 1 < q else -1


@compiled(inline="always")
def to_front(mc, j):
    """Job j, unfinished, goes to the head of its machine's order (the rest keep theirs)."""
    i = mc.machine[j]
    if mc.qhead[i] == j:
        return
    _unlink(mc, j)
    h = mc.qhead[i]
    mc.nxt[j] = h
    mc.prv[h] = j
    mc.qhead[i] = j


@compiled
def queue_of(mc, i):
    """Machine i's unfinished jobs in processing order (a FIFO machine: its list)."""
    out = np.empty(mc.qlen[i], np.int64)
    j, k = mc.qhead[i], 0
    while j >= 0:
        out[k] = j
        k += 1
        j = mc.nxt[j]
    return out


@compiled(inline="always")
def eligible(mc, pos):
    """The eligible machines of arrival ``pos`` (a view of the instance's CSR, ascending)."""
    o = mc.order[pos]
    return mc.indices[mc.indptr[o] : mc.indptr[o + 1]]


@compiled(inline="always")
def arrive(mc, pos):
    """The release of arrival ``pos``, as a float instant, with each of its eligible machines
    brought up to it (as the engine brings every machine it is asked about)."""
    t = float(mc.release[pos])
    for i in eligible(mc, pos):
        advance(mc, i, t)
    return t


@compiled
def remaining_work(mc, i):
    """The work left on machine i as of ``t_last[i]`` (≥ 0): the step path's
    ``view.remaining_work(i)`` once the machine is brought up to the present (:func:`arrive`)."""
    return max(0.0, mc.work_left[i])


@compiled
def queue_length(mc, i):
    """Unfinished jobs on machine i, the one in service counted: ``len(view.queue(i))``."""
    return mc.qlen[i]


@compiled
def shortest_queue(mc, machines):
    """The first machine of ``machines`` with the fewest unfinished jobs (``qlen``)."""
    qlen = mc.qlen
    i = machines[0]
    for c in machines[1:]:
        if qlen[c] < qlen[i]:
            i = c
    return i


@compiled
def least_work(mc, machines):
    """The first machine of ``machines`` whose remaining work is below the best so far by more
    than 1e-9 (``_flow_rules.least_work``): the least work, ties to the first."""
    work = mc.work_left
    i = machines[0]
    best = max(0.0, work[i])
    for c in machines[1:]:
        w = max(0.0, work[c])
        if w < best - 1e-9:
            i = c
            best = w
    return i


@compiled
def drain(mc):
    """The end of a run: every machine runs empty."""
    for i in range(mc.m):
        advance(mc, i, mc.t_last[i] + mc.work_left[i] / mc.speed + 1.0)


@compiled
def _finish(mc):
    """:func:`drain`; returns the machines, completions and trace of the run (the rows as
    written: each machine's in time order, the machines interleaved as they ran)."""
    drain(mc)
    return mc.machine, mc.completion, mc.ti[: mc.rows], mc.tf[: mc.rows]


# ---------------------------------------------------------------------- the step path
@compiled
def _extend(a, cap, fill):
    b = np.full(cap, fill)
    b[: a.shape[0]] = a
    return b


@compiled
def _grow(mc, cap):
    """Room for ``cap`` jobs in a :class:`StepMachines` record (FIFO machines)."""
    mc.n = cap
    mc.size = _extend(mc.size, cap, 1.0)
    mc.rem = _extend(mc.rem, cap, 1.0)
    mc.completion = _extend(mc.completion, cap, np.nan)
    mc.machine = _extend(mc.machine, cap, -1)
    mc.nxt = _extend(mc.nxt, cap, -1)
    mc.prv = _extend(mc.prv, cap, -1)


@compiled
def _join(mc, j, i, t):
    """Machine i brought up to instant t, then job j dispatched to it."""
    advance(mc, i, t)
    dispatch(mc, j, i)


@compiled
def _step_arrays(mc):
    """The arrays :class:`StepMachines` reads from Python (the record's own, not copies): per
    job, per machine, and the trace (rows written, ``ti``, ``tf``)."""
    per_job = (mc.size, mc.rem, mc.completion, mc.machine, mc.nxt)
    return per_job, (mc.qhead, mc.qlen, mc.t_last, mc.work_left), (mc.rows, mc.ti, mc.tf)


_entry_points: dict = {}


def _direct(fn, *argtypes):
    """``fn`` compiled for ``argtypes``, called without numba's per-call look-up of the argument
    types (``Dispatcher.compile`` gives the compiled entry point): about 0.3 µs a call from
    Python instead of 1.2 µs with the record as an argument — the step path calls per decision.
    Kept per process (asking numba again costs about 50 µs, and every engine asks)."""
    key = (fn, argtypes)
    if key not in _entry_points:
        _entry_points[key] = fn.compile(argtypes)
    return _entry_points[key]


class StepMachines:
    """The core driven one decision at a time: the engine's step path (Python rules, plug-ins).

    Jobs are numbered by arrival as they come (:meth:`add`); each machine runs its unfinished
    jobs in an explicit order, a FIFO machine's list that the algorithm's decisions rearrange
    (:meth:`remove`, :meth:`to_front`, :meth:`set_order`). Processing is the compiled
    :func:`advance`, the compiled rules' own. The record's arrays (``rem``, ``completion``,
    ``t_last``, ``work_left``, ``qhead`` …) are read here directly, without a compiled call.
    """

    def __init__(self, m: int, speed: float, capacity: int = 64) -> None:
        cap = int(capacity)
        self.mc = _new(
            np.arange(cap, dtype=np.int64),
            np.zeros(cap, np.int64),
            np.ones(cap, np.int64),
            np.zeros(cap + 1, np.int64),
            np.zeros(0, np.int64),
            int(m),
            float(speed),
            FIFO,
            np.zeros(1),
            np.zeros(1, np.int64),
            0,
            True,
        )
        self.speed = float(speed)
        self.n = 0
        self._arrays()
        rec, i64, f64 = numba.typeof(self.mc), types.int64, types.float64
        self._advance = _direct(advance, rec, i64, f64)
        self._join = _direct(_join, rec, i64, i64, f64)
        self._remove = _direct(remove, rec, i64)
        self._to_front = _direct(to_front, rec, i64)
        self._set_order = _direct(set_order, rec, i64, types.Array(i64, 1, "C"))
        self._queue_of = _direct(queue_of, rec, i64)

    def _arrays(self) -> None:
        per_job, per_machine, _ = _step_arrays(self.mc)
        self.size, self.rem, self.completion, self.machine, self.nxt = per_job
        self.qhead, self.qlen, self.t_last, self.work_left = per_machine

    def add(self, size: int) -> int:
        """A new job of ``size`` units, not yet on a machine; returns its number."""
        j = self.n
        if j == self.size.shape[0]:
            _grow(self.mc, 2 * j)
            self._arrays()
        self.size[j] = size
        self.rem[j] = size
        self.n = j + 1
        return j

    def advance_to(self, i: int, t: float) -> None:
        """Machine i processes up to instant t (:func:`advance`; an idle machine just waits)."""
        if t <= self.t_last.item(i):
            return
        if self.qhead.item(i) < 0:
            self.work_left[i] = 0.0
            self.t_last[i] = t
            return
        self._advance(self.mc, i, float(t))

    def dispatch(self, j: int, i: int, t: float) -> None:
        """Job j joins the end of machine i's order at instant t (:func:`dispatch`)."""
        self._join(self.mc, j, i, float(t))

    def remove(self, j: int, t: float) -> None:
        """Job j, unfinished, leaves its machine at instant t (:func:`remove`)."""
        self.advance_to(self.machine.item(j), t)
        self._remove(self.mc, j)

    def to_front(self, j: int) -> None:
        """Job j, unfinished, to the head of its machine's order (:func:`to_front`)."""
        self._to_front(self.mc, j)

    def set_order(self, i: int, jobs: list[int]) -> None:
        """Machine i's unfinished jobs, all of them, in the order ``jobs`` (:func:`set_order`)."""
        self._set_order(self.mc, i, np.asarray(jobs, dtype=np.int64))

    def queue(self, i: int) -> list[int]:
        """Machine i's unfinished jobs in processing order, as of ``t_last[i]``."""
        j = self.qhead.item(i)
        if j < 0:
            return []
        if self.qlen.item(i) > 8:
            return self._queue_of(self.mc, i).tolist()
        out, nxt = [], self.nxt.item  # a short list: walked here, cheaper than a compiled call
        while j >= 0:
            out.append(j)
            j = nxt(j)
        return out

    def holds(self, i: int, j: int) -> bool:
        """Whether job j is an unfinished job of machine i."""
        return self.machine.item(j) == i and math.isnan(self.completion.item(j)) and self.nxt.item(j) != REMOVED

    def done(self, j: int) -> bool:
        """Whether job j has completed."""
        return not math.isnan(self.completion.item(j))

    def busy(self) -> bool:
        """Whether some machine has unfinished work."""
        return bool((self.qhead >= 0).any())

    def next_completion_slot(self, i: int) -> int | None:
        """The slot in which machine i's running job completes, seen from ``t_last[i]`` (None:
        idle) — never the slot already being processed: a completion inside it is seen at the next."""
        h = self.qhead.item(i)
        if h < 0:
            return None
        t = self.t_last.item(i)
        c = t + self.rem.item(h) / self.speed
        return max(int(math.ceil(c - WORK_TOL / self.speed)), int(math.floor(t)) + 1)

    def drain(self) -> None:
        """Every machine runs empty (:func:`drain`)."""
        drain(self.mc)

    def trace(self) -> tuple[np.ndarray, ...]:
        """The trace rows in the order written: machine, job, start, end, work."""
        rows, ti, tf = _step_arrays(self.mc)[2]
        return tuple(
            np.ascontiguousarray(a) for a in (ti[:rows, 0], ti[:rows, 1], tf[:rows, 0], tf[:rows, 1], tf[:rows, 2])
        )


# ---------------------------------------------------------------------- the caller
def record(inst, order, speed: float, order_rule: int = FIFO, key=None, groups=None, traced: bool = True) -> Machines:
    """The :class:`Machines` record of ``inst`` (jobs in arrival ``order``) at ``speed``;
    ``order_rule`` FIFO, BY_KEY (``key[pos]``: smaller first), SRPT or CHOSEN; ``groups`` (``groups[pos]``
    in 0..G−1, e.g. a class rule's classes): the core keeps each machine's work left per group in
    ``group_work`` (m × G); ``traced`` False: no trace (a rule's background simulation)."""
    if order_rule not in (FIFO, BY_KEY, SRPT, CHOSEN):
        raise ValueError(f"order_rule: FIFO, BY_KEY, SRPT or CHOSEN, not {order_rule!r}")
    if order_rule == BY_KEY:
        if key is None or np.shape(key) != (inst.n,):
            raise ValueError(f"key: one value per job ({inst.n}) with order_rule BY_KEY")
        key = np.asarray(key, dtype=np.float64)
    elif key is not None:
        raise ValueError("key: applies to order_rule BY_KEY only")
    else:
        key = np.zeros(1)
    if groups is None:
        group, n_groups = np.zeros(1, np.int64), 0
    else:
        group = np.asarray(groups, dtype=np.int64)
        if group.shape != (inst.n,):
            raise ValueError(f"groups: one group per job ({inst.n})")
        n_groups = int(group.max()) + 1 if inst.n else 1
    return _new(
        np.asarray(order, dtype=np.int64),
        inst.release,
        inst.size,
        inst.indptr,
        inst.indices,
        int(inst.m),
        float(speed),
        int(order_rule),
        key,
        group,
        n_groups,
        bool(traced),
    )


def run(rule_fn, inst, order, speed: float, *args, order_rule: int = FIFO, key=None, groups=None) -> CompiledRun:
    """The compiled rule ``rule_fn(machines, *args)`` on the :func:`record` of ``inst`` (jobs in
    arrival ``order``) at ``speed`` (``order_rule``, ``key``, ``groups`` as there). Runs every
    machine empty after the rule returns and gives the run as a :class:`CompiledRun`."""
    mc = record(inst, order, speed, order_rule, key, groups)
    rule_fn(mc, *args)
    return CompiledRun(*_finish(mc))


def static_rank(*keys: np.ndarray) -> np.ndarray:
    """The rank of each arrival position under the lexicographic ``keys`` (first key most
    significant), ties by position: smallest first (a BY_KEY machine's ``key``)."""
    n = keys[0].shape[0]
    by = np.lexsort((np.arange(n),) + tuple(reversed(keys)))
    rank = np.empty(n, np.int64)
    rank[by] = np.arange(n)
    return rank
