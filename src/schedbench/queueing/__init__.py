"""Stochastic wings: the loss system with adaptive multiserver jobs (seed 002, :mod:`.loss`)
and bipartite load balancing with heterogeneous servers (seed 003, :mod:`.bipartite`).

Shared by both: closed forms (:mod:`.formulas`), batch-means estimators (:mod:`.estimators`),
numba helpers (:mod:`.kernel_common`) and log-log fits (:mod:`.fits`).
"""

from schedbench.queueing.formulas import erlang_b, k_schedule, lam_of_n, min_response, sampled_birth_death_d1
from schedbench.queueing.loss import LossExact, LossResult, simulate_loss, solve_loss_exact

__all__ = ["simulate_loss", "LossResult", "solve_loss_exact", "LossExact", "erlang_b",
           "sampled_birth_death_d1", "lam_of_n", "k_schedule", "min_response"]
