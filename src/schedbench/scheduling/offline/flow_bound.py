"""The trivial lower bound for the flow-time problems (docs/models/rejection-model.md §8.2–§8.3; the exact optima are
:func:`~schedbench.scheduling.offline.opt_max_flow`): every job served at speed 1 has
F_j ≥ p_j, so OPT ≥ max_j w_j·p_j with the problem's flow weight (1, w_j, w^f_j, or 1/p_j for
stretch, which gives 1). Status ``bound``: a ratio over it overstates ALG/OPT."""

from __future__ import annotations

import time

import numpy as np

from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline.result import OptResult
from schedbench.scheduling.problems import get_problem

__all__ = ["flow_lower_bound"]


def flow_lower_bound(inst: Instance, problem: str) -> OptResult:
    t0 = time.perf_counter()
    weights = get_problem(problem).flow_weights(inst)
    lb = float(np.max(weights * inst.size, initial=0.0))
    return OptResult(float("nan"), "bound", lb, "trivial-flow-bound", time.perf_counter() - t0)
