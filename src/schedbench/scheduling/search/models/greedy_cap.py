"""Exact model of ``greedy-cap`` (B2) with the oracle T = T*: least-loaded (index ties); the job
is rejected when load + p_j > κ·T and the budget allows (rejected + 1 ≤ ε·arrived: the integer
form :func:`schedbench.scheduling.budget.allowance` of the plug-in's rule), else accepted."""

from __future__ import annotations

import math

from schedbench.scheduling.budget import allowance
from schedbench.scheduling.search.models._core import ORACLE_OPT, Builder, Decisions, ExactModel
from schedbench.scheduling.search.models.greedy import load_dispatch


def over_cap(b: Builder, j: int, c: list, Lj: list, thr: int, name: str):
    """A literal: the chosen machine's load + p_j ≥ thr."""
    md = b.md
    over = md.new_bool_var(f"{name}{j}")
    md.add_implication(over, b.present[j])
    for i in b.M:
        md.add(Lj[i] + b.size[j] >= thr).only_enforce_if([c[i], over])
        md.add(Lj[i] + b.size[j] <= thr - 1).only_enforce_if([c[i], ~over])
    return over


class BudgetGuard:
    """Counts rejections; ``ok(j)`` ⟺ one more rejection at position j stays within ε·(j+1)
    (``budget.allowance``: bit-identical to the plug-ins' ``Budget.allows``)."""

    def __init__(self, b: Builder, eps: float) -> None:
        self.b, self.eps = b, eps
        self.count = b.md.new_constant(0)

    def ok(self, j: int):
        return self.b.reify_ge(allowance(self.eps, j + 1) - 1 - self.count, 0, f"budget_ok{j}")

    def add(self, j: int, rej) -> None:
        v = self.b.md.new_int_var(0, j + 1, f"RC{j + 1}")
        self.b.md.add(v == self.count + rej)
        self.count = v


def build(b: Builder, eps, params: dict, T: int) -> Decisions:
    kappa = float(params.get("kappa", 2.0))
    thr = math.floor(kappa * T) + 1  # load + p > κT  ⟺  load + p ≥ ⌊κT⌋ + 1 (integers)
    guard = BudgetGuard(b, eps)

    def rule(j, c, Lj):
        over = over_cap(b, j, c, Lj, thr, "over")
        rej = b.and_(over, guard.ok(j), f"rej{j}")
        guard.add(j, rej)
        return rej

    return load_dispatch(b, rule)


MODEL = ExactModel("greedy-cap", "load", unit_only=False, rejects=True, build=build, follows=ORACLE_OPT)
