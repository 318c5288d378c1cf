"""LoadBalancing with rejection, arbitrary sizes: paper §5 (sizes rounded up to powers of two,
the unit rule per size class, large jobs rejected after dispatch), rule LB_GEN of
``docs/models/rejection-model.md`` §2.2 [R✓: reconstruction whose O(log²(1/ε)) matches the
abstract].

On arrival of j (class k = ⌈log₂ p_j⌉, rounded size 2^k): the eligible machine with the least
*virtual* class-k load (everything of class k ever dispatched to it, later rejections included;
ties to the lowest index); reject j on arrival if that load + 2^k exceeds α·T. Otherwise
dispatch, and while the machine's *real* load (rounded sizes of its non-rejected jobs) exceeds
β·T, reject its job with the largest rounded size, ties to the latest dispatched (the overload
rule, after dispatch: Thm 8.2 shows it is unavoidable).

Budget split ε₁ = ε₂ = ε/2. α: ``alpha_rule="safe"`` 2⌈log₂(1/ε₁)⌉ (default, provable) or
``"paper"`` ⌈log₂(1/ε₁)⌉. β: ``beta_rule="safe"`` 2α⌈log₂(4/ε₂)⌉ (default, provable, large:
30 at ε = 0.25 with the paper α), or the practical sweep ``"2alpha"``, ``"3alpha"``; explicit
numbers ``alpha``/``beta`` override the rules (the spec's own check used α = 3, β = 2, §2.2).
T: ``oracle="opt"`` uses T = 2·T* (the rounded instance's optimum is at most 2·T*, docs/models/rejection-model.md §2.2);
``oracle="trivial-lb"`` uses T(t) = 2^⌈log₂ max(p_max, ⌈Σp/m⌉)⌉ of the prefix rounded sizes
with a new phase (fresh loads) whenever it changes (docs/models/rejection-model.md §2.3 (a), with the trivial bound in
place of the fractional LP). ``guard="on"`` never rejects past ε·arrivals (accepts instead,
counted in ``guard_fires``); ``"off"`` (default) lets the validator report overruns.
Loads are reported in true sizes (the validator's objective).
"""

from __future__ import annotations


import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling.algorithms._guard import guarded_reject
from schedbench.scheduling.algorithms._oracles import TrivialPrefixBound, pow2_at_least_nb
from schedbench.scheduling.algorithms.base import GUARD, JobView, OnlineAlgorithm
from schedbench.scheduling.budget import Budget, ceil_log2
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm


def lb_general_constants(
    eps: float, alpha_rule: str, beta_rule: str, alpha: float | None = None, beta: float | None = None
) -> tuple[float, float]:
    """(α, β) of docs/models/rejection-model.md §2.2 with ε₁ = ε₂ = ε/2; an explicit ``alpha`` or ``beta`` overrides its
    rule (β's rule then uses the given α)."""
    e1 = e2 = eps / 2.0
    if alpha is None:
        base = max(1, ceil_log2(1.0 / e1))
        alpha = 2 * base if alpha_rule == "safe" else base
    if beta is None:
        if beta_rule == "safe":
            beta = 2 * alpha * max(1, ceil_log2(4.0 / e2))
        else:
            beta = {"2alpha": 2, "3alpha": 3}[beta_rule] * alpha
    return float(alpha), float(beta)


@register_algorithm
class LbGeneralReject(OnlineAlgorithm):
    name = "lb-general-reject"
    problem = "load"
    model = "rejection"
    rule_label = "R✓"
    needs_opt = True
    late_reject = True
    parameters = {
        "alpha_rule": Param("safe", ("paper", "safe"), "α = ⌈log₂(2/ε)⌉ (paper) or twice that (safe)"),
        "beta_rule": Param("safe", ("safe", "2alpha", "3alpha"), "β = 2α⌈log₂(8/ε)⌉ (safe), 2α or 3α"),
        "alpha": Param(None, doc="explicit α > 0 (overrides alpha_rule; null: the rule)"),
        "beta": Param(None, doc="explicit β > 0 (overrides beta_rule; null: the rule)"),
        "oracle": Param("opt", ("opt", "trivial-lb"), "opt: T = 2T*; trivial-lb: prefix bound, phases"),
        "guard": GUARD,
    }
    summary = "sizes rounded to powers of two; per size class the unit rule with cap β·T"
    bound = "O(log² 1/ε)"
    cites = "cdgk"
    section = "§5"
    reference = "Roy Choudhury et al. SODA 2015 §5 (arbitrary sizes); docs/models/rejection-model.md §2.2, §2.3"

    @classmethod
    def check_params(cls, params):
        cls._positive_number(params, "alpha", allow_none=True)
        cls._positive_number(params, "beta", allow_none=True)

    @classmethod
    def ratio_bound(cls, eps, params, opt=None):
        """2β with T = 2T* (real rounded load ≤ β·T); none with the prefix-bound phases (their
        bound, 8β, is too loose to draw) or when a guard may accept past the caps."""
        if params["guard"] == "on" or params["oracle"] != "opt":
            return None
        return float(
            2 * lb_general_constants(eps, params["alpha_rule"], params["beta_rule"], params["alpha"], params["beta"])[1]
        )

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        p = self.params
        self.alpha, self.beta = lb_general_constants(self.eps, p["alpha_rule"], p["beta_rule"], p["alpha"], p["beta"])
        self.bound = TrivialPrefixBound(self.m) if self.params["oracle"] == "trivial-lb" else None
        self.T = 2.0 * float(self.opt) if self.bound is None else 0.0
        self.budget = Budget(self.eps)  # by count (LoadBalancing)
        self.counters = {"guard_fires": 0}
        self._fresh_phase()
        self.pending: list[int] = []

    def _fresh_phase(self) -> None:
        self.virtual: dict[tuple[int, int], float] = {}  # (machine, class) -> virtual load
        self.real = np.zeros(self.m)  # rounded sizes of live phase jobs
        self.live: list[list[tuple[int, int]]] = [[] for _ in range(self.m)]  # (class, job), dispatch order

    def _may_reject(self) -> bool:
        if self.params["guard"] == "on" and not self.budget.allows():
            self.counters["guard_fires"] += 1
            return False
        return True

    def on_arrival(self, job: JobView, view) -> int:
        self.budget.arrive()
        k = ceil_log2(job.size)
        while (1 << k) < job.size:
            k += 1
        ph = float(1 << k)
        if self.bound is not None:
            T = self.bound.add(1 << k)
            if T != self.T:
                self.T = T
                self._fresh_phase()
        i = min(job.eligible.tolist(), key=lambda c: (self.virtual.get((c, k), 0.0), c))
        if self.virtual.get((i, k), 0.0) + ph > self.alpha * self.T and self._may_reject():
            self.budget.reject()
            return REJECT
        self.virtual[(i, k)] = self.virtual.get((i, k), 0.0) + ph
        self.real[i] += ph
        self.live[i].append((k, job.id))
        while self.real[i] > self.beta * self.T:
            if not self._may_reject():
                break
            # largest class, ties to the latest dispatched
            idx = max(range(len(self.live[i])), key=lambda q: (self.live[i][q][0], q))
            kk, victim = self.live[i].pop(idx)
            self.real[i] -= float(1 << kk)
            self.budget.reject()
            self.pending.append(victim)
        return i

    def after_arrival(self, view):
        out, self.pending = self.pending, []
        return out

    def dispatch_all(self, size, indptr, indices, order):
        machine, reject_pos, fires = lb_general_kernel(
            size,
            indptr,
            indices,
            order,
            self.m,
            float(self.alpha),
            float(self.beta),
            self.T,
            self.eps,
            self.params["guard"] == "on",
            self.bound is not None,
        )
        self.counters["guard_fires"] = int(fires)
        return machine, reject_pos


@compiled
def size_class(p):
    """a(j) = ⌈log₂ p⌉ for an integer p ≥ 1."""
    k = 0
    while (1 << k) < p:
        k += 1
    return k


@compiled
def lb_general_kernel(size, indptr, indices, order, m, alpha, beta, t_oracle, eps, guard, phases):
    """LB_GEN of rejection-model.md §2.2 (per-class greedy on virtual loads, cap α·T per class, overload rule
    on real load β·T rejecting the largest rounded job, ties latest dispatched). ``phases``:
    T(t) = 2^⌈log₂ LB(t)⌉ with LB the trivial prefix bound max(p_max, ⌈Σp/m⌉) of the rounded
    sizes (docs/models/rejection-model.md §2.3 (a),
    weaker bound), a new phase (fresh loads) each time T changes; otherwise T = ``t_oracle``.
    Returns (machine, reject position, guard fires)."""
    n = size.shape[0]
    kmax = 0
    for j in range(n):
        kmax = max(kmax, size_class(size[j]))
    K = kmax + 1
    V = np.zeros((m, K))
    R = np.zeros(m)
    head = np.full((m, K), -1, dtype=np.int64)  # latest dispatched live job of (machine, class)
    prev = np.full(n, -1, dtype=np.int64)  # the one dispatched before it
    machine = np.empty(n, dtype=np.int64)
    reject_pos = np.full(n, -1, dtype=np.int64)
    rejected = 0
    fires = 0
    total = 0.0
    pmax = 0
    T = t_oracle
    for pos in range(order.shape[0]):
        j = order[pos]
        k = size_class(size[j])
        ph = float(1 << k)
        if phases:
            total += ph
            pmax = max(pmax, 1 << k)
            lb = max(float(pmax), np.ceil(total / m))
            t_new = pow2_at_least_nb(lb)  # lb ≥ 1
            if t_new != T:
                T = t_new
                V[:, :] = 0.0
                R[:] = 0.0
                head[:, :] = -1
        # least virtual class-k load among the eligible machines, ties to the lowest index
        start, end = indptr[j], indptr[j + 1]
        i = indices[start]
        for q in range(start + 1, end):
            c = indices[q]
            if V[c, k] < V[i, k] or (V[c, k] == V[i, k] and c < i):
                i = c
        if V[i, k] + ph > alpha * T:
            reject, rejected, fires = guarded_reject(guard, rejected, fires, pos, eps)
            if reject:
                machine[j] = -1
                continue
        machine[j] = i
        V[i, k] += ph
        R[i] += ph
        prev[j] = head[i, k]
        head[i, k] = j
        while R[i] > beta * T:
            kk = K - 1
            while kk >= 0 and head[i, kk] < 0:
                kk -= 1
            reject, rejected, fires = guarded_reject(guard, rejected, fires, pos, eps)
            if not reject:
                break
            jj = head[i, kk]
            head[i, kk] = prev[jj]
            reject_pos[jj] = pos
            R[i] -= float(1 << kk)
    return machine, reject_pos, fires
