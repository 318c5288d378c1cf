"""WtdMaxFlowTime with rejection, algorithm B: paper §6.2 (Roy Choudhury, Das, Garg, Kumar,
SODA 2015), rule of ``docs/models/rejection-model.md`` §4.3 (defaults §10).

* A (``wmft-A``, §4.2) runs in the background, simulated here at speed 1 on the same arrivals;
  B uses A's dispatch and rejects, at arrival, exactly the jobs A rejects [R].
* Timeout [Q/R]: a job j alive in B (dispatched, not completed, not rejected) is rejected at the
  first slot t with t − r_j ≥ c·T/w_j (waiting-time test, §10.9), even if partly processed
  (late rejection; the validator reports the wasted work).
* Processing, each slot and machine i [Q/R]: let j_A be the job A processes on i. If B's alive
  jobs on i include one with density ≥ D·dens(j_A), run the densest such job; else run j_A if it
  is alive in B; else (A idle, or j_A completed or timed out in B) run the densest alive job
  (§10.8). Density dens(j) = ŵ/p̂ = 2^{b−a} (rounded values, §10.6); ties among the densest:
  earliest r_j + c·T/w_j, then job id.
* Parameters: ``alpha`` (None → 1/ε), ``D`` (None → 1/ε), ``c``: a rule ``"1/eps"``,
  ``"1/eps2"``, ``"1/eps4"`` or a number > 0; default ``"1/eps4"``, the theory-faithful value
  (the O(1/ε⁴) ratio corresponds to a timeout Θ(1/ε⁴), §4.3), with the others for the
  sweep of §10.1. ``oracle`` as A: ``"opt"`` (T = T*) or ``"prefix-lb"`` (T(t) = 2^⌈log₂ max_j
  w_j p_j⌉ over the prefix; timeouts use the current T, so they only move later).

Guarantee (by the timeout rule): a job still alive at slot t has t − r_j < c·T/w_j and finishes
at t + 1 at the latest if processed then, so every completed job has F_j < c·T/w_j + 1, i.e.
w_j·F_j < c·T + w_j ≤ (c + 1)·OPT with T = T* (w_j ≤ w_j·p_j ≤ OPT). The budget is the paper's
claim for T ≥ T* with its (unknown) constants; with the defaults it is reported, not enforced.
"""

from __future__ import annotations

import heapq
from collections import namedtuple

import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling import machines as mc
from schedbench.scheduling.machines import heap_meld, heap_pop
from schedbench.scheduling.algorithms._classes import ORACLES, ClassRule, class_tables, timeout_slot
from schedbench.scheduling.algorithms._oracles import pow2_at_least
from schedbench.scheduling.algorithms.base import JobView, SlotPlan
from schedbench.scheduling.algorithms.wmft_a import a_arrival, a_next_slot, a_redecide, new_a_state
from schedbench.scheduling.budget import ceil_log2_signed
from schedbench.scheduling import event_calendar as ec
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm

__all__ = ["WmftB", "C_RULES", "wmft_b_rule"]

C_RULES = {"1/eps": 1, "1/eps2": 2, "1/eps4": 4, "1/eps6": 6}  # c = 1/ε^k


@register_algorithm
class WmftB(ClassRule):
    """Algorithm B (§4.3): A in the background, density override by D, timeout c·T/w_j."""

    name = "wmft-B"
    problem = "wtdmaxflow"
    problems = ("maxflow",)
    late_reject = True
    runs_b = True
    c_rules = ("1/eps", "1/eps2", "1/eps4")
    parameters = {
        "alpha": Param(None, None, "A's queue limit α·T/2^b; None: α = 1/ε (docs/models/rejection-model.md §10.1)"),
        "D": Param(None, None, "'much higher density' factor; None: D = 1/ε (docs/models/rejection-model.md §10.1)"),
        "c": Param(
            "1/eps4", None, "timeout c·T/w_j: '1/eps', '1/eps2', '1/eps4' (theory-faithful, default) or a number > 0"
        ),
        "oracle": Param(
            "opt",
            ORACLES,
            "opt: T = T* [Q assumption]; prefix-lb: T(t) = 2^⌈log₂ max_j w_j p_j⌉ "
            "over the prefix (docs/models/rejection-model.md §4.5 (a), no LP term) [R]",
        ),
    }
    summary = "A in the background; density override; timeout c·T/w"
    bound = "O(1/ε⁴)"
    cites = "cdgk"
    section = "§6.2"
    reference = "Roy Choudhury et al. SODA 2015 §6.2 (algorithm B); docs/models/rejection-model.md §4.3, §4.5, §10"
    by_reject = False  # B_gen (gwmft): density by the budget weight w^r instead of the flow weight
    no_hopeless = False  # B_gen (gwmft): no preemption of a running job for a hopeless one

    # ------------------------------------------------------------------ parameters
    @classmethod
    def check_params(cls, params):
        super().check_params(params)
        c = params["c"]
        if isinstance(c, str):
            if c not in cls.c_rules:
                raise ParameterError(
                    f"algorithm {cls.name!r}: parameter 'c' must be one of {list(cls.c_rules)} "
                    f"or a number > 0, got {c!r}"
                )
        else:
            cls._positive_number(params, "c")

    @classmethod
    def c_value(cls, eps: float, params) -> float:
        c = params["c"]
        return float(eps) ** -C_RULES[c] if isinstance(c, str) else float(c)

    @classmethod
    def ratio_bound(cls, eps, params, opt=None):
        """w_j F_j < c·T + w_j for every completed job, w_j ≤ OPT: (c·T + OPT)/OPT with T = T*
        (oracle opt: c + 1); with prefix-lb T ≤ 2^⌈log₂ OPT⌉ (≤ 2·OPT when OPT is not given)."""
        if eps is None:
            return None
        c = cls.c_value(eps, params)
        if params.get("oracle", "opt") == "opt":
            return c + 1.0
        if opt is None or not opt > 0:
            return 2.0 * c + 1.0
        return c * pow2_at_least(float(opt)) / float(opt) + 1.0

    def compiled_run(self, inst, order):
        """B on the machine core (:func:`wmft_b_rule`), every parameter; None only past
        :data:`~._classes.MAX_CLASS_CELLS` (the step path). Sets the counters as the step path."""
        tables = class_tables(self, inst, order)
        if tables is None:
            return None
        n = tables.size.size
        dexp = ((tables.e if self.by_reject else tables.b) - tables.a).astype(np.int64)
        n_tgrp, tgrp = 0, np.zeros(1, np.int64)
        if not self.prefix and n:
            wvals, tg = np.unique(tables.wf, return_inverse=True)
            if wvals.size <= MAX_TIMEOUT_QUEUES:
                n_tgrp, tgrp = int(wvals.size), tg.reshape(-1).astype(np.int64)
        rule = BRule(
            float(self.c),
            int(self.dshift),
            bool(self.no_hopeless),
            tables.wf,
            dexp,
            tables.T_at,
            bool(self.prefix),
            tgrp,
            n_tgrp,
        )
        a_background = mc.record(inst, order, 1.0, mc.CHOSEN, groups=tables.cls, traced=False)
        a_args = (tables.limit, tables.pw, tables.tie, ec.calendar_span(tables.size))
        counts, late = np.zeros(2, np.int64), np.full(n, -1, np.int64)
        run = mc.run(wmft_b_rule, inst, order, 1.0, a_background, *a_args, rule, counts, late, order_rule=mc.CHOSEN)
        run.late_reject_slot = late
        self.counters["a_rejections"] = int(np.count_nonzero(run.machine < 0))
        self.counters["timeouts"] = int(counts[0])
        if "hopeless_kept" in self.counters:
            self.counters["hopeless_kept"] = int(counts[1])
        if self.prefix and n:
            self.T = float(tables.T_at[-1])
        return run

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.c = type(self).c_value(self.eps, self.params)
        D = self.params["D"]
        D = 1.0 / self.eps if D is None else float(D)
        self.D = D
        self.dshift = ceil_log2_signed(D)  # dens ≥ D·dens' ⟺ exponent ≥ exponent' + dshift
        self.alive: dict[int, int] = {}  # B-alive job -> machine
        self.brem: dict[int, int] = {}
        self.size: dict[int, int] = {}
        self.rel: dict[int, int] = {}
        self.dexp: dict[int, int] = {}
        self.dheap: list[list[tuple]] = [[] for _ in range(self.m)]  # (−density exponent, r + cT/w, id)
        self.brun = [-1] * self.m
        self.bsince = [0] * self.m
        self.bver = [0] * self.m
        self.bevents: list[tuple[int, int, int]] = []  # (slot, machine, version): B's running job completes
        self.timeouts: list[tuple[int, int]] = []  # (slot, job)
        self.bdirty: set[int] = set()
        self.counters["timeouts"] = 0

    def density_exponent(self, c: tuple) -> int:
        """log₂ of ŵ/p̂ = b − a (docs/models/rejection-model.md §4.3)."""
        return c[1] - c[0]

    def timeout_of(self, j: int) -> int:
        return timeout_slot(self.rel[j], self.c * self.T / self.wflow[j])

    # ------------------------------------------------------------------ arrivals
    def on_arrival(self, job: JobView, view) -> int:
        i = self.a_dispatch(job, view)
        if i == REJECT:
            return REJECT
        j = job.id
        self.alive[j] = i
        self.brem[j] = self.size[j] = job.size
        self.rel[j] = job.release
        d = self.dexp[j] = self.density_exponent(self.sim.cls[j])
        heapq.heappush(self.dheap[i], (-d, job.release + self.c * self.T / self.wflow[j], j))
        heapq.heappush(self.timeouts, (self.timeout_of(j), j))
        self.bdirty.add(i)
        return i

    # ------------------------------------------------------------------ slots
    def bsync(self, i: int, t: int) -> None:
        """B's processing on machine i up to slot t (its running job since bsince[i])."""
        j = self.brun[i]
        dt = t - self.bsince[i]
        self.bsince[i] = t
        if j < 0 or dt <= 0:
            return
        r = self.brem[j] - dt
        if r < 0:
            raise RuntimeError(f"{self.name}: B's simulation missed a completion on machine {i} (slot {t})")
        self.brem[j] = r
        if r == 0:
            del self.alive[j]
            self.brun[i] = -1

    def on_slot(self, view) -> SlotPlan | None:
        t = view.time
        plan = None
        bdirty = self.bdirty
        bdirty.update(self.a_changed(t))  # A's choice changed on these machines
        ev, bver = self.bevents, self.bver
        while ev and ev[0][0] <= t:
            _, i, v = heapq.heappop(ev)
            if v == bver[i]:
                bdirty.add(i)
        to, alive = self.timeouts, self.alive
        while to and to[0][0] <= t:
            _, j = heapq.heappop(to)
            if j not in alive:
                continue
            if self.prefix:  # T may have grown since the timeout was computed: the timeout moves later
                s = self.timeout_of(j)
                if s > t:
                    heapq.heappush(to, (s, j))
                    continue
            i = alive[j]
            self.bsync(i, t)
            if j not in alive:
                continue  # completed at the end of the last slot
            del alive[j]
            if self.brun[i] == j:
                self.brun[i] = -1
            self.counters["timeouts"] += 1
            if plan is None:
                plan = SlotPlan(reject=[])
            plan.reject.append(j)
            bdirty.add(i)
        if bdirty:
            for i in sorted(bdirty):
                pick = self.b_choose(i, t)
                if pick >= 0:
                    if plan is None:
                        plan = SlotPlan()
                    plan.priority[i] = (pick,)
            bdirty.clear()
        nxt = self.sim.next_event()
        while ev and ev[0][2] != bver[ev[0][1]]:
            heapq.heappop(ev)
        if ev and (nxt is None or ev[0][0] < nxt):
            nxt = ev[0][0]
        while to and to[0][1] not in alive:
            heapq.heappop(to)
        if to and (nxt is None or to[0][0] < nxt):
            nxt = to[0][0]
        wake = self.wake.ask(t, nxt)
        if wake is not None:
            if plan is None:
                plan = SlotPlan()
            plan.wake_at = wake
        return plan

    def b_choose(self, i: int, t: int) -> int:
        """B's job on machine i from slot t (docs/models/rejection-model.md §4.3); −1 when nothing is alive. Returns the
        job to put first when it differs from the one running, else −1 (no reorder needed)."""
        self.bsync(i, t)
        alive = self.alive
        heap = self.dheap[i]
        while heap and heap[0][2] not in alive:
            heapq.heappop(heap)
        top = heap[0][2] if heap else -1
        ja = self.sim.head[i]
        if ja >= 0 and top >= 0 and self.dexp[top] < self.dexp[ja] + self.dshift and ja in alive:
            pick = ja
        else:
            pick = top
        pick = self.keep_running(i, t, pick)
        self.bver[i] += 1
        prev = self.brun[i]
        self.brun[i] = pick
        if pick < 0:
            return -1
        heapq.heappush(self.bevents, (t + self.brem[pick], i, self.bver[i]))
        return pick if pick != prev else -1

    def keep_running(self, i: int, t: int, pick: int) -> int:
        """Hook for variants that refuse some preemptions (gwmft); B runs ``pick``."""
        return pick


# ---------------------------------------------------------------------- the compiled path
# B on the machine core: the run's record holds B's machines (CHOSEN: B names the job each runs),
# a second, untraced record algorithm A (``a_background``, CHOSEN too, driven by
# :func:`~.wmft_a.a_arrival` and :func:`~.wmft_a.a_redecide`). Slots in event order (an
# arrival, an event of A's or B's calendar, a timeout); within a slot the step path's order:
# the arrivals, A's re-decisions, B's timeouts, B's choices. The rejection model runs at speed 1
# with integer sizes: every time is an integer slot and every quantity is exact.

#: B's timeouts (T fixed) go in one FIFO queue per distinct flow weight when there are at most
#: this many weights (each slot looks at every queue's front), else in an indexed heap.
MAX_TIMEOUT_QUEUES = 64

#: B's rule: ``cval`` (c), ``dshift`` (density ≥ D·density' ⟺ exponent ≥ exponent' + dshift),
#: ``no_hopeless`` (gwmft); per arrival ``wflow`` (flow weight), ``dexp`` (density exponent),
#: ``T_at`` (T after the arrival); ``prefix`` (T grows: timeouts re-checked); ``tgrp``/``n_tgrp``
#: (per arrival its flow weight's index among ≤ 64 distinct ones, T fixed; 0: a heap of timeouts).
BRule = namedtuple("BRule", "cval dshift no_hopeless wflow dexp T_at prefix tgrp n_tgrp")
#: B's state: per job ``alive`` (dispatched, neither completed nor timed out) and its place in
#: its machine's densest-first heap (key (−density exponent, deadline, position): ``neg_d``,
#: ``deadline``, ``ids``; links ``left``/``right``); per machine the heap's ``root``, the job B
#: runs (``run``), whether gwmft kept a hopeless job (``kept``), the machines to re-decide
#: (``bd``, listed in ``bd_list``); ``late``: each job's timeout slot (−1: none).
_BState = namedtuple("_BState", "alive neg_d deadline ids left right root run kept bd bd_list late")
#: B's timeouts of alive jobs: with T fixed, one FIFO queue per flow weight (``next``, ``head``,
#: ``tail``, offset ``off`` = the timeout after release), else an indexed heap (``key``, ``job``,
#: ``pos``).
_Timeouts = namedtuple("_Timeouts", "fifo n_tgrp tgrp next head tail off key job pos")


@compiled(inline="always")
def _timeout(r, x):
    """:func:`~._classes.timeout_slot` compiled: the first slot t with t − r ≥ x (relative slack
    1e-9); r + 2^62 (never reached) when x ≥ 2^62 or is infinite, before any float-to-int
    conversion."""
    if not x < 4.611686018427388e18:  # 2^62
        return r + ec.NEVER
    y = np.ceil(x - 1e-9 * max(1.0, x))
    return r + (np.int64(y) if y > 0 else 0)


@compiled
def _new_state(machines, rule, late):
    """B's state and timeouts (every array allocated here, once)."""
    n, m, n_tgrp = machines.n, machines.m, rule.n_tgrp
    B = _BState(
        np.zeros(n, np.bool_),
        -rule.dexp,
        np.zeros(n, np.float64),
        np.arange(n),
        np.full(n, -1, np.int64),
        np.full(n, -1, np.int64),
        np.full(m, -1, np.int64),
        np.full(m, -1, np.int64),
        np.zeros(m, np.bool_),
        np.zeros(m, np.bool_),
        np.empty(m, np.int64),
        late,
    )
    nh = n if n_tgrp == 0 else 1
    TO = _Timeouts(
        n_tgrp > 0,
        n_tgrp,
        rule.tgrp,
        np.full(n if n_tgrp > 0 else 1, -1, np.int64),
        np.full(n_tgrp, -1, np.int64),
        np.full(n_tgrp, -1, np.int64),
        np.zeros(n_tgrp, np.int64),
        np.empty(nh, np.int64),
        np.empty(nh, np.int64),
        np.full(nh, -1, np.int64),
    )
    if n_tgrp > 0:  # T fixed: a job's timeout is its release plus its flow weight's offset
        T0 = rule.T_at[0] if n else 1.0
        for j in range(n):
            TO.off[rule.tgrp[j]] = _timeout(0, rule.cval * T0 / rule.wflow[j])
    return B, TO


@compiled(inline="always")
def _sync(machines, B, TO, i, t, ntos):
    """B's machine i brought up to slot t (only B's running job runs until B's next event, so
    only it can complete: then it is no longer alive and leaves the timeouts' heap). Returns the
    timeouts' count."""
    j = B.run[i]
    mc.advance(machines, i, float(t))
    if j >= 0 and machines.rem[j] == 0.0:
        B.alive[j] = False
        B.run[i] = -1
        if not TO.fifo:
            ntos = ec.ih_remove(j, ntos, TO.key, TO.job, TO.pos)
    return ntos


@compiled(inline="always")
def _time_out(machines, B, TO, j, t, ntos):
    """Job j's timeout at slot t: its machine synced first (it may have completed at the end of
    the last slot), then, if still alive, j leaves its machine (a late rejection). Returns the
    timeouts' count and the machine that lost j (−1: j was not alive)."""
    i = machines.machine[j]
    ntos = _sync(machines, B, TO, i, t, ntos)
    if not B.alive[j]:
        return ntos, -1
    B.alive[j] = False
    if B.run[i] == j:
        B.run[i] = -1
    B.late[j] = t
    mc.remove(machines, j)
    return ntos, i


@compiled(inline="always")
def _decide(machines, B, rule, a_head, i, t, T):
    """B's choice on machine i at slot t, after :func:`_sync` (:meth:`WmftB.b_choose`,
    :meth:`Gwmft.keep_running`; ``a_head``: A's jobs in service): sets ``run[i]``; returns 1 if
    gwmft kept a hopeless job running, else 0."""
    r = B.root[i]
    while r >= 0 and not B.alive[r]:
        r = heap_pop(r, B.neg_d, B.deadline, B.ids, B.left, B.right)
    B.root[i] = r
    ja = a_head[i]
    pick = r
    if ja >= 0 and r >= 0 and rule.dexp[r] < rule.dexp[ja] + rule.dshift and B.alive[ja]:
        pick = ja
    hk = 0
    if rule.no_hopeless:
        run = B.run[i]
        B.kept[i] = False
        rem, size = machines.rem, machines.size
        if not (run < 0 or pick == run or pick < 0 or rem[run] == size[run]):
            if t + np.int64(rem[pick]) > _timeout(machines.release[pick], rule.cval * T / rule.wflow[pick]):
                hk = 1
                B.kept[i] = True
                pick = run
    B.run[i] = pick
    return hk


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
    return ec.ih_push(j, _timeout(r, x), ntos, TO.key, TO.job, TO.pos)


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


@compiled
def wmft_b_rule(machines, a_background, limit, pw, tie, span, rule, counts, late):
    """Algorithm B on the machine core (§4.3; B_gen of §5 with ``rule.no_hopeless``), A on
    ``a_background`` (``limit``, ``pw``, ``tie``, ``span`` as :func:`~.wmft_a.wmft_a_rule`).
    Writes each job's timeout slot into ``late`` and the counts of timeouts and hopeless jobs
    kept into ``counts``. Allocates the state, then runs :func:`_b_loop`."""
    A = new_a_state(a_background, limit, pw, tie, span)
    B, TO = _new_state(machines, rule, late)
    _b_loop(machines, a_background, A, B, TO, ec.new_calendar(machines.m, span), rule, counts)


@compiled(_nrt=False)
def _b_loop(machines, a_background, A, B, TO, cal, rule, counts):
    """The event loop of :func:`wmft_b_rule` (nothing allocated or reference-counted; the trace
    grows in a call of its own). ``cal``: B's next event per machine (its running job's
    completion)."""
    n, m, release = machines.n, machines.m, machines.release
    pos, ntos, tprev = 0, 0, np.int64(-1)
    timeouts, hopeless_kept = 0, 0
    T = rule.T_at[0] if n else 1.0
    nbd = 0
    while True:
        t = a_next_slot(a_background, A, pos, tprev)  # the next slot at which anything happens:
        t, ntos = _to_next(TO, B.alive, release, t, ntos)  # an arrival, A's event, a timeout
        t = ec.cal_next(cal, t, tprev)  # or B's event
        if t == ec.NEVER:
            break
        tprev = t
        # ---- arrivals of slot t: A decides; B takes A's machine (or rejects with A)
        nd = 0
        while pos < n and release[pos] == t:
            j = pos
            pos += 1
            if rule.prefix and rule.T_at[j] != T:
                T = rule.T_at[j]
                if rule.no_hopeless:  # a larger T moves timeouts later (Gwmft.T_changed)
                    for i in range(m):
                        if B.kept[i]:
                            nbd = ec.mark(B.bd, B.bd_list, nbd, i)
            i, nd = a_arrival(a_background, A, j, t, nd)
            if i < 0:
                continue
            mc.dispatch(machines, j, i)  # B's machine i is brought up to t when B re-decides it
            B.alive[j] = True
            x = rule.cval * T / rule.wflow[j]
            B.deadline[j] = release[j] + x
            B.root[i] = heap_meld(B.root[i], j, B.neg_d, B.deadline, B.ids, B.left, B.right)
            ntos = _to_add(TO, j, release[j], x, ntos)
        # ---- A re-decides; B re-decides wherever A did
        nd = a_redecide(a_background, A, t, nd)
        for q in range(nd):
            nbd = ec.mark(B.bd, B.bd_list, nbd, A.dirty_list[q])
        # ---- B: completions, timeouts, choices
        nbd = ec.cal_take(cal, t, B.bd, B.bd_list, nbd)
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
                    ntos, i = _time_out(machines, B, TO, j, t, ntos)
                    if i >= 0:
                        timeouts += 1
                        nbd = ec.mark(B.bd, B.bd_list, nbd, i)
                if TO.head[g] < 0:
                    TO.tail[g] = -1
        while ntos > 0 and not TO.fifo and TO.key[0] <= t:
            j = TO.job[0]
            ntos = ec.ih_remove(j, ntos, TO.key, TO.job, TO.pos)
            if not B.alive[j]:
                continue
            if rule.prefix:
                s = _timeout(release[j], rule.cval * T / rule.wflow[j])
                if s > t:
                    ntos = ec.ih_push(j, s, ntos, TO.key, TO.job, TO.pos)
                    continue
            ntos, i = _time_out(machines, B, TO, j, t, ntos)
            if i >= 0:
                timeouts += 1
                nbd = ec.mark(B.bd, B.bd_list, nbd, i)
        for q in range(nbd):
            i = B.bd_list[q]
            B.bd[i] = False
            ntos = _sync(machines, B, TO, i, t, ntos)
            hopeless_kept += _decide(machines, B, rule, A.head, i, t, T)
            pick = B.run[i]
            mc.choose(machines, i, pick)
            if pick < 0:
                ec.cal_del(cal, i)
                continue
            ec.cal_set(cal, i, t + np.int64(machines.rem[pick]), t)
        nbd = 0
    counts[0], counts[1] = timeouts, hopeless_kept
