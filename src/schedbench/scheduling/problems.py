"""The five problems of the rejection model as data (``docs/models/rejection-model.md`` §1.1, §5).

Each :class:`Problem` names its objective and the weight its rejection budget counts. The
engine (does it process work?), the validator (which objective, which budget), the
offline-optimum dispatch and the tables read this table; no other module branches on a
problem's name.

=============  =========================  ==================  ==============================
name           objective                  flow weight         budget weight (§1.1)
=============  =========================  ==================  ==============================
load           max_t max_i load_i(t)      —                   count
maxflow        max_j F_j                  1                   count
wtdmaxflow     max_j w_j F_j              w (``w_flow``)      w (``w_flow``)
genwtd         max_j w^f_j F_j            w^f (``w_flow``)    w^r (``w_reject``)
stretch        max_j F_j / p_j            1/p_j               count
=============  =========================  ==================  ==============================

F_j = C_j − r_j over jobs that are not rejected; OPT serves every job at speed 1 (docs/models/rejection-model.md §1.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedbench.scheduling.model import Instance

__all__ = ["Problem", "PROBLEMS", "get_problem", "problem_names"]

_FLOW_WEIGHTS = ("none", "one", "w_flow", "inverse_size")
_BUDGET_WEIGHTS = ("count", "w_flow", "w_reject")


@dataclass(frozen=True)
class Problem:
    """One scheduling problem: what is minimised and what the rejection budget counts."""

    name: str
    objective: str  # "max_load" or "max_weighted_flow"
    flow_weight: str  # one of _FLOW_WEIGHTS ("none" for max_load)
    budget_weight: str  # one of _BUDGET_WEIGHTS
    title: str

    def __post_init__(self) -> None:
        if self.objective not in ("max_load", "max_weighted_flow"):
            raise ValueError(f"problem {self.name!r}: unknown objective {self.objective!r}")
        if self.flow_weight not in _FLOW_WEIGHTS or self.budget_weight not in _BUDGET_WEIGHTS:
            raise ValueError(f"problem {self.name!r}: unknown weight rule")
        if (self.objective == "max_load") != (self.flow_weight == "none"):
            raise ValueError(f"problem {self.name!r}: only max_load has no flow weight")

    @property
    def processes(self) -> bool:
        """Whether machines process work slot by slot (flow time) or only collect load."""
        return self.objective == "max_weighted_flow"

    def flow_weights(self, inst: Instance) -> np.ndarray:
        """The weight multiplying F_j in the objective, per job."""
        if self.flow_weight == "one":
            return np.ones(inst.n)
        if self.flow_weight == "w_flow":
            return np.asarray(inst.w_flow, dtype=np.float64)
        if self.flow_weight == "inverse_size":
            return 1.0 / np.asarray(inst.size, dtype=np.float64)
        raise ValueError(f"problem {self.name!r} has no flow objective")

    def budget_weights(self, inst: Instance) -> np.ndarray:
        """The weight each job counts for in the rejection budget."""
        if self.budget_weight == "count":
            return np.ones(inst.n)
        return np.asarray(getattr(inst, self.budget_weight), dtype=np.float64)

    def budget_weight_of(self, w_flow: float, w_reject: float) -> float:
        """The budget weight of one job (the engine keeps its running sums with it)."""
        return {"count": 1.0, "w_flow": w_flow, "w_reject": w_reject}[self.budget_weight]

    def flow_weight_of(self, size: int, w_flow: float) -> float:
        """The flow weight of one job (the engine's claimed objective)."""
        return {"one": 1.0, "w_flow": w_flow, "inverse_size": 1.0 / size}[self.flow_weight]


PROBLEMS: dict[str, Problem] = {
    p.name: p
    for p in (
        Problem("load", "max_load", "none", "count", "LoadBalancing (max load)"),
        Problem("maxflow", "max_weighted_flow", "one", "count", "MaxFlowTime"),
        Problem("wtdmaxflow", "max_weighted_flow", "w_flow", "w_flow", "WtdMaxFlowTime"),
        Problem("genwtd", "max_weighted_flow", "w_flow", "w_reject", "GenWtdMaxFlowTime"),
        Problem("stretch", "max_weighted_flow", "inverse_size", "count", "max stretch"),
    )
}


def get_problem(name: str) -> Problem:
    if not isinstance(name, str):
        raise ValueError(f"problem must be one of {', '.join(PROBLEMS)} (a string), got {name!r}")
    try:
        return PROBLEMS[name]
    except KeyError:
        raise ValueError(f"unknown problem {name!r}; known: {', '.join(PROBLEMS)}") from None


def problem_names() -> list[str]:
    return list(PROBLEMS)
