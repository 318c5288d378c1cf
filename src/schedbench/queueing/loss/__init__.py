"""Loss system with adaptive multiserver jobs (seed 002): numba simulators (:mod:`.kernels`,
:mod:`.simulate`), exact CTMC oracles (:mod:`.exact`), the pipeline's point expansion
(:mod:`.experiments`) and slope fits (:mod:`.slopes`)."""

from schedbench.queueing.loss.exact import LossExact, solve_loss_exact
from schedbench.queueing.loss.simulate import LossResult, simulate_loss

__all__ = ["simulate_loss", "LossResult", "solve_loss_exact", "LossExact"]
