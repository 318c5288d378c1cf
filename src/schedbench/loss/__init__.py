"""The loss wing: the loss system with adaptive multiserver jobs (seed 002). Numba simulators
(:mod:`.kernels`, :mod:`.simulate`), exact CTMC oracles (:mod:`.exact`), closed forms
(:mod:`.formulas`; Erlang-B is the hall's, :mod:`schedbench.hall.erlang`), and its pipeline stage
(:mod:`.stage`: points, slope fits, config checks, tables, report views, figures)."""

from schedbench.hall.erlang import erlang_b
from schedbench.loss.exact import LossExact, solve_loss_exact
from schedbench.loss.formulas import (
    k_schedule,
    lam_of_n,
    mean_response_given_split,
    min_response,
    sampled_birth_death_d1,
)
from schedbench.loss.simulate import LossResult, simulate_loss

__all__ = [
    "simulate_loss",
    "LossResult",
    "solve_loss_exact",
    "LossExact",
    "erlang_b",
    "lam_of_n",
    "k_schedule",
    "sampled_birth_death_d1",
    "min_response",
    "mean_response_given_split",
]
