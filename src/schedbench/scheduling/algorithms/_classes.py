"""Class queues shared by the weighted max-flow algorithms (``docs/models/rejection-model.md``
§1.3, §4.1–4.3, §5, §7 B5): ``wmft-A``, ``wmft-B``, ``gwmft`` and ``class-ll-srpt``.

* Job classes: a = ⌈log₂ p⌉, b = ⌊log₂ w^f⌋, e = ⌊log₂ w^r⌋ (flow weight and budget weight of the
  run's problem, :mod:`schedbench.scheduling.problems`). The key is always (a, b, e): for
  WtdMaxFlowTime e = b and for MaxFlowTime / stretch e = 0, so the partition is exactly the
  (a, b) classes of §4.1 there, and the (a, b, e) classes of A_gen (§5) for GenWtd.
* :class:`ClassQueues` — algorithm A of §4.2, simulated exactly and lazily: per machine and
  class a FIFO queue and its load (A's remaining processing); dispatch to the eligible machine
  with the least load *of the job's own class* (ties: lowest index); the queue-limit test
  load + p > α·T/2^b; processing: the nonempty class maximising load·2^b/2^a (ties: larger b,
  then smaller a, then larger e), the head of its FIFO queue.
* :class:`SrptClassQueues` — the same queues and loads, processed SRPT across all jobs of a
  machine (ties: release, then job id): baseline B5.

Lazy simulation. A machine's processing choice can only change at an arrival on it, at the
completion of the job it runs, or when the priority of the class it runs — which falls
linearly, 2^{b−a} per slot — drops below the best other class's (constant meanwhile). Each
(re)evaluation computes that next slot exactly (dyadic arithmetic, no rounding) and puts it in
an event heap; between events nothing is touched, so the work is proportional to events, not
to slots × machines. The result equals re-deciding every machine in every slot (tested against
such a per-slot reference in ``tests/unit/test_weighted_algorithms.py``).

Sizes are integers and the machines of the rejection model run at speed 1, so every
completion and every class change falls on a slot boundary.

Compiled paths, all four from the arrays of :func:`class_tables`, policies on the machine core:
``wmft-A`` and ``class-ll-srpt`` (:mod:`~.wmft_a`, :mod:`~.class_ll_srpt`), ``wmft-B`` and
``gwmft`` (:mod:`~.wmft_b`: B on the run's machines, A's functions on a second, untraced record).
"""

from __future__ import annotations

import heapq
import math
from collections import deque, namedtuple

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.scheduling.algorithms._oracles import pow2_at_least
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.event_calendar import NEVER
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.problems import get_problem

__all__ = [
    "size_class",
    "weight_class",
    "job_class",
    "timeout_slot",
    "ClassQueues",
    "SrptClassQueues",
    "WakeUps",
    "REJECTED",
    "ClassRule",
    "ORACLES",
    "MAX_CLASS_CELLS",
    "ClassTables",
    "class_tables",
    "class_priority",
]

REJECTED = -1  # ClassQueues.offer's answer for a job over its queue limit
ORACLES = ("opt", "prefix-lb")  # T = T*, or T(t) = 2^⌈log₂ max_j w_j p_j⌉ over the prefix (§4.5 (a))


def size_class(p: int) -> int:
    """a = ⌈log₂ p⌉ for an integer p ≥ 1 (exact)."""
    return (int(p) - 1).bit_length()


def weight_class(w: float) -> int:
    """b = ⌊log₂ w⌋ for w > 0 (exact, from the float's exponent)."""
    mant, exp = math.frexp(float(w))
    return exp - 1  # w = mant·2^exp with 0.5 ≤ mant < 1


def job_class(size: int, w_flow: float, w_budget: float) -> tuple[int, int, int]:
    """The class (a, b, e) of a job: rounded size 2^a ≥ p, flow weight 2^b ≤ w^f, budget weight 2^e ≤ w^r."""
    return (size_class(size), weight_class(w_flow), weight_class(w_budget))


def timeout_slot(release: int, x: float) -> int:
    """The first slot t with t − r ≥ x (the waiting-time timeout of §4.3 / §10.9), x > 0; a
    relative tolerance of 1e-9 keeps x = c·T/w that are integers in exact arithmetic integers.
    An x of :data:`~schedbench.scheduling.event_calendar.NEVER` (2^62) or more (or infinite: c·T/w
    overflowing) is r + NEVER, a slot no run reaches (every time of a run is below 2^53; the
    compiled path's int64 agrees)."""
    if not x < NEVER:
        return int(release) + int(NEVER)
    return int(release) + max(0, math.ceil(x - 1e-9 * max(1.0, x)))


class WakeUps:
    """The wake-up slots already asked of the engine, so that each is asked once."""

    def __init__(self) -> None:
        self.asked: set[int] = set()
        self.heap: list[int] = []

    def ask(self, now: int, slot: int | None) -> int | None:
        """``slot`` if it is a later slot not asked yet (then the engine will call us there), else None."""
        heap, asked = self.heap, self.asked
        while heap and heap[0] <= now:
            asked.discard(heapq.heappop(heap))
        if slot is None or slot <= now or slot in asked:
            return None
        asked.add(slot)
        heapq.heappush(heap, slot)
        return slot


class ClassQueues:
    """Algorithm A's per-machine class queues (docs/models/rejection-model.md §4.1–4.2), simulated lazily.

    Per machine i: ``loads[i]`` {class: remaining work of A's jobs of that class} (only
    nonempty classes; the class ``cur[i]`` being processed is exact at slot ``since[i]`` and
    falls by 1 per slot after it), ``head[i]`` the job A processes (−1: idle). Jobs are the
    engine's ids. Call :meth:`due` at each slot hook, then :meth:`choose` for every machine it
    returns and every machine :meth:`offer` added a job to.
    """

    def __init__(self, m: int) -> None:
        self.m = m
        self.queues: list[dict[tuple, deque]] = [{} for _ in range(m)]
        self.loads: list[dict[tuple, int]] = [{} for _ in range(m)]
        self.cur: list[tuple | None] = [None] * m
        self.since = [0] * m
        self.head = [-1] * m
        self.version = [0] * m
        self.rem: dict[int, int] = {}
        self.release: dict[int, int] = {}
        self.cls: dict[int, tuple] = {}
        self.events: list[tuple[int, int, int]] = []  # (slot, machine, version)
        self.info: dict[tuple, tuple] = {}  # class -> (2^{b−a}, tie key)

    # ------------------------------------------------------------------ dispatch
    def least_loaded(self, c: tuple, eligible, t: int) -> tuple[int, int]:
        """argmin over ``eligible`` (ascending) of (own-class load at t, index), and that load."""
        best, best_load = -1, 0
        loads, cur, since = self.loads, self.cur, self.since
        for i in eligible:
            L = loads[i].get(c, 0)
            if L and cur[i] == c:
                L -= t - since[i]
            if best < 0 or L < best_load:
                best, best_load = i, L
                if L == 0:
                    break
        return best, best_load

    def offer(self, j: int, release: int, size: int, c: tuple, eligible, t: int, limit: float) -> int:
        """Dispatch job j of class c (§4.2): the machine, or :data:`REJECTED` if its own-class
        load + p would exceed ``limit`` = α·T/2^b."""
        i, L = self.least_loaded(c, eligible, t)
        if L + size > limit:
            return REJECTED
        self.add(i, j, release, size, c, t)
        return i

    def add(self, i: int, j: int, release: int, size: int, c: tuple, t: int) -> None:
        self.advance(i, t)
        self.rem[j] = size
        self.release[j] = release
        self.cls[j] = c
        if c not in self.info:  # 2^{b−a} and the tie key (larger b, smaller a, larger e)
            self.info[c] = (math.ldexp(1.0, c[1] - c[0]), (c[1], -c[0], c[2]))
        self.loads[i][c] = self.loads[i].get(c, 0) + size
        self._enqueue(i, j, c)

    def _enqueue(self, i: int, j: int, c: tuple) -> None:
        q = self.queues[i].get(c)
        if q is None:
            q = self.queues[i][c] = deque()
        q.append(j)

    # ------------------------------------------------------------------ processing
    def advance(self, i: int, t: int) -> None:
        """Process machine i from ``since[i]`` to slot t along its current choice."""
        c = self.cur[i]
        dt = t - self.since[i]
        if c is None or dt <= 0:
            if dt > 0:
                self.since[i] = t
            return
        loads, rem = self.loads[i], self.rem
        left = loads[c] - dt
        if left < 0:
            raise RuntimeError(f"class queue simulation missed an event on machine {i} (slot {t})")
        q = self.queues[i][c]
        while dt > 0:
            h = q[0]
            r = rem[h]
            if r <= dt:
                dt -= r
                rem[h] = 0
                q.popleft()
            else:
                rem[h] = r - dt
                dt = 0
        if left == 0:
            del loads[c]
            del self.queues[i][c]
            self.cur[i] = None
        else:
            loads[c] = left
        self.since[i] = t

    def choose(self, i: int, t: int) -> int:
        """Re-decide machine i at slot t (after :meth:`advance`): A's class rule; sets and
        returns ``head[i]`` and schedules the next event of i."""
        self.advance(i, t)
        info = self.info
        best = None
        bP = sP = -1.0
        btie = stie = None
        for c, L in self.loads[i].items():
            pw, tie = info[c]
            P = L * pw  # load·2^{b−a}, exact (a power of two times an integer)
            if P > bP or (P == bP and tie > btie):
                sP, stie = bP, btie
                best, bP, btie = c, P, tie
            elif P > sP or (P == sP and tie > stie):
                sP, stie = P, tie
        self.version[i] += 1
        if best is None:
            self.cur[i], self.head[i] = None, -1
            return -1
        self.cur[i], self.since[i] = best, t
        h = self.queues[i][best][0]
        self.head[i] = h
        k = self.rem[h]  # the head completes after k slots (the class may change then)
        if stie is not None:
            # after k' slots the class's priority is (L − k')·2^{b−a}; first k' where the runner-up wins
            L = self.loads[i][best]
            x = sP / info[best][0]  # runner-up priority in units of this class's load (exact)
            kc = math.floor(L - x) + 1 if btie > stie else math.ceil(L - x)
            if kc < k:
                k = kc if kc > 1 else 1
        heapq.heappush(self.events, (t + k, i, self.version[i]))
        return h

    def due(self, t: int) -> list[int]:
        """Machines with an event at a slot ≤ t (each once)."""
        ev, ver = self.events, self.version
        out = []
        while ev and ev[0][0] <= t:
            _, i, v = heapq.heappop(ev)
            if v == ver[i]:
                ver[i] += 1  # consumed: a second entry of the same version is stale
                out.append(i)
        return out

    def next_event(self) -> int | None:
        ev, ver = self.events, self.version
        while ev and ev[0][2] != ver[ev[0][1]]:
            heapq.heappop(ev)
        return ev[0][0] if ev else None


class SrptClassQueues(ClassQueues):
    """The class loads of A (dispatch and limit as A) processed SRPT across all jobs of a
    machine (docs/models/rejection-model.md §7 B5): the job with the least remaining work, ties by release then job id.
    The running job only gets shorter, so a machine's choice changes only at an arrival on it
    or a completion."""

    def __init__(self, m: int) -> None:
        super().__init__(m)
        self.heaps: list[list[tuple[int, int, int]]] = [[] for _ in range(m)]  # (rem, release, job), not running

    def _enqueue(self, i: int, j: int, c: tuple) -> None:
        heapq.heappush(self.heaps[i], (self.rem[j], self.release[j], j))

    def advance(self, i: int, t: int) -> None:
        h = self.head[i]
        dt = t - self.since[i]
        if h < 0 or dt <= 0:
            if dt > 0:
                self.since[i] = t
            return
        r = self.rem[h] - dt
        if r < 0:
            raise RuntimeError(f"SRPT simulation missed a completion on machine {i} (slot {t})")
        c = self.cls[h]
        loads = self.loads[i]
        left = loads[c] - dt
        if left == 0:
            del loads[c]
        else:
            loads[c] = left
        self.rem[h] = r
        if r == 0:
            self.head[i] = -1
            self.cur[i] = None
        self.since[i] = t

    def choose(self, i: int, t: int) -> int:
        self.advance(i, t)
        heap = self.heaps[i]
        h = self.head[i]
        if h >= 0:  # the running job goes back into the heap with its current remaining work
            heapq.heappush(heap, (self.rem[h], self.release[h], h))
        self.version[i] += 1
        if not heap:
            self.cur[i], self.head[i] = None, -1
            return -1
        _, _, h = heapq.heappop(heap)
        self.head[i], self.cur[i], self.since[i] = h, self.cls[h], t
        heapq.heappush(self.events, (t + self.rem[h], i, self.version[i]))
        return h


class ClassRule(OnlineAlgorithm):
    """What A, B, gwmft and class-ll-srpt share: job classes, T (oracle or prefix bound), the
    per-class least-load dispatch and the queue-limit rejection of A (not registered)."""

    model = "rejection"
    rule_label = "R"
    queues_class = ClassQueues
    runs_b = False  # whether B (§4.3) runs on top of A: the engine then runs B's choices

    @classmethod
    def check_params(cls, params):
        for key in ("alpha", "D"):
            if key in params:
                cls._positive_number(params, key, allow_none=True)

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        prob = get_problem(self.problem)
        self._flow_kind, self._budget_kind = prob.flow_weight, prob.budget_weight
        alpha = self.params.get("alpha")
        self.alpha = 1.0 / self.eps if alpha is None else float(alpha)
        self.prefix = self.params.get("oracle", "opt") == "prefix-lb"
        self.T = float(self.opt) if not self.prefix else 0.0
        self.lb = 0.0
        self.sim = type(self).queues_class(self.m)
        self.wflow: dict[int, float] = {}
        self.dirty: set[int] = set()
        self.wake = WakeUps()
        self.counters["a_rejections"] = 0

    def classify(self, job: JobView) -> tuple[tuple, float]:
        """The job's class (a, b, e) and flow weight; with ``prefix-lb``, T is updated first."""
        kind = self._flow_kind  # the problem table's flow weight (problems.py), inlined for speed
        wf = job.w_flow if kind == "w_flow" else 1.0 if kind == "one" else 1.0 / job.size
        kind = self._budget_kind
        wr = 1.0 if kind == "count" else job.w_flow if kind == "w_flow" else job.w_reject
        if self.prefix and wf * job.size > self.lb:
            self.lb = wf * job.size
            T = pow2_at_least(self.lb)
            if T != self.T:
                self.T = T
                self.T_changed()
        return (size_class(job.size), weight_class(wf), weight_class(wr)), wf

    def T_changed(self) -> None:
        """Called when the prefix bound raises T (``oracle="prefix-lb"``)."""

    def limit(self, c: tuple) -> float:
        """Lim(b) = α·T/2^b (docs/models/rejection-model.md §4.1)."""
        return self.alpha * math.ldexp(self.T, -c[1])

    def a_dispatch(self, job: JobView, view) -> int:
        """A's decision for an arriving job: a machine (queued in A) or REJECT."""
        c, wf = self.classify(job)
        i = self.sim.offer(job.id, job.release, job.size, c, job.eligible.tolist(), view.time, self.limit(c))
        if i == REJECTED:
            self.counters["a_rejections"] += 1
            return REJECT
        self.wflow[job.id] = wf
        self.dirty.add(i)
        return i

    def a_changed(self, t: int) -> list[int]:
        """Re-decide A on every machine with an event or an arrival at slot t; those machines."""
        due = self.sim.due(t)
        if self.dirty:
            due = sorted(self.dirty.union(due))
            self.dirty.clear()
        for i in due:
            self.sim.choose(i, t)
        return due


# ---------------------------------------------------------------------- the compiled paths' tables
#: Largest m × (number of job classes) a compiled path allocates per-machine class tables for
#: (about 1.2 GB at this bound); beyond it the run takes the step path.
MAX_CLASS_CELLS = 50_000_000

#: A class rule's inputs by arrival position (``order[pos]`` is the job): ``size``, ``release``
#: (int64), flow weight ``wf``, the class exponents ``a``, ``b``, ``e`` and the class index
#: ``cls``; per class ``pw`` = 2^{b−a} and ``tie`` (rank of (b, −a, e), larger wins);
#: ``T_at`` (T after the arrival: T* or the prefix bound) and ``limit`` (α·T/2^b at arrival).
ClassTables = namedtuple("ClassTables", "size release wf a b e cls n_classes pw tie T_at limit")


def class_tables(alg: ClassRule, inst, order) -> ClassTables | None:
    """The :class:`ClassTables` of ``alg`` on ``inst`` (§4.1's classes, with the step path's
    float operations: :meth:`ClassRule.classify`, :meth:`ClassRule.limit`); None when
    m × classes passes :data:`MAX_CLASS_CELLS`."""
    prob = get_problem(alg.problem)
    size = inst.size[order].astype(np.int64)
    release = inst.release[order].astype(np.int64)
    n = size.size
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
        T_at = pow2_at_least(np.maximum.accumulate(wf * size))
    else:
        T_at = np.full(n, float(alg.T))
    limit = alg.alpha * np.ldexp(T_at, -b)
    return ClassTables(size, release, wf, a, b, e, cls, n_classes, pw, tie, T_at, limit)


@compiled(inline="always")
def class_priority(loads, i, pw, tie):
    """A's class rule on machine i (§4.2, :meth:`ClassQueues.choose`): the class c with load
    L_c = ``loads[i, c]`` > 0 maximising L_c·2^{b−a} (``pw[c]``; ties: the larger ``tie[c]``), −1 if none, and the
    delay k ≥ 1 after which its priority, falling by 2^{b−a} a slot while it runs, passes below
    the best other class's (constant meanwhile; ``NEVER`` if there is none). Exact: loads
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
