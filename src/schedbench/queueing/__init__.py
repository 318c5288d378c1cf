"""Stochastic models: the loss system with adaptive multiserver jobs (seed 002).

Simulators are numba kernels (:mod:`.loss_kernels`); exact oracles are in :mod:`.formulas`
and :mod:`.loss_exact`.
"""

from .formulas import erlang_b, k_schedule, lam_of_n, min_response, sampled_birth_death_d1
from .loss import LossResult, simulate_loss
from .loss_exact import LossExact, solve_loss_exact

__all__ = ["simulate_loss", "LossResult", "solve_loss_exact", "LossExact", "erlang_b",
           "sampled_birth_death_d1", "lam_of_n", "k_schedule", "min_response"]
