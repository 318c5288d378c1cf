"""Exact model of ``lb-unit-reject`` (docs/models/rejection-model.md §2.1) with the oracle T = T*: least-loaded (index
ties), rejected on arrival when the chosen machine's load ≥ α·T (with ``guard='on'`` only if
the budget allows). Unit sizes. Its max load is ≤ α·T by construction: the interesting search
is ``objective='rejection'`` (the worst prefix rejection fraction against ε)."""

from __future__ import annotations

from schedbench.scheduling.algorithms.lb_unit_reject import alpha_for
from schedbench.scheduling.search.models._core import ORACLE_OPT, Builder, Decisions, ExactModel
from schedbench.scheduling.search.models.greedy import load_dispatch
from schedbench.scheduling.search.models.greedy_cap import BudgetGuard, over_cap


def build(b: Builder, eps, params: dict, T: int) -> Decisions:
    alpha = alpha_for(eps, params.get("alpha_rule", "paper"))
    cap = alpha * T  # reject when load ≥ cap, i.e. load + 1 ≥ cap + 1
    guard = BudgetGuard(b, eps) if params.get("guard", "off") == "on" else None

    def rule(j, c, Lj):
        over = over_cap(b, j, c, Lj, cap + 1, "over")
        if guard is None:
            return over
        rej = b.and_(over, guard.ok(j), f"rej{j}")
        guard.add(j, rej)
        return rej

    return load_dispatch(b, rule)


MODEL = ExactModel("lb-unit-reject", "load", unit_only=True, rejects=True, build=build, follows=ORACLE_OPT)
