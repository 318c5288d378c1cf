"""Stochastic wings: the loss system with adaptive multiserver jobs (seed 002, :mod:`.loss`)
and bipartite load balancing with heterogeneous servers (seed 003, :mod:`.bipartite`).

Shared by both: closed forms (:mod:`.formulas`), batch-means estimators (:mod:`.estimators`),
numba helpers (:mod:`.kernel_common`) and log-log fits (:mod:`.fits`). The names below are
loaded on first use, so importing one wing does not import the other.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "simulate_loss": "schedbench.queueing.loss", "LossResult": "schedbench.queueing.loss",
    "solve_loss_exact": "schedbench.queueing.loss", "LossExact": "schedbench.queueing.loss",
    "erlang_b": "schedbench.queueing.formulas", "sampled_birth_death_d1": "schedbench.queueing.formulas",
    "lam_of_n": "schedbench.queueing.formulas", "k_schedule": "schedbench.queueing.formulas",
    "min_response": "schedbench.queueing.formulas",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'schedbench.queueing' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
