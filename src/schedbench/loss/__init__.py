"""The loss wing: the loss system with adaptive multiserver jobs. Numba simulators
(:mod:`.kernels`, :mod:`.simulate`), exact CTMC oracles (:mod:`.exact`), closed forms
(:mod:`.formulas`; Erlang-B is the hall's, :mod:`schedbench.hall.erlang`), and its pipeline stage
(:mod:`.stage`: points, slope fits, config checks, tables, report views, figures)."""

from __future__ import annotations

from schedbench.hall.lazy import lazy_getattr

#: the wing's public names, loaded on first use (as the package's own, ``schedbench.__init__``): a
#: job that imports one room of the wing (its figures, say) does not import the simulators and
#: the exact oracles with numba and scipy, nor depend on their sources
_EXPORTS = {
    "simulate_loss": "schedbench.loss.simulate",
    "LossResult": "schedbench.loss.simulate",
    "solve_loss_exact": "schedbench.loss.exact",
    "LossExact": "schedbench.loss.exact",
    "erlang_b": "schedbench.hall.erlang",
    "lam_of_n": "schedbench.loss.formulas",
    "k_schedule": "schedbench.loss.formulas",
    "sampled_birth_death_d1": "schedbench.loss.formulas",
    "min_response": "schedbench.loss.formulas",
    "mean_response_given_split": "schedbench.loss.formulas",
}

__all__ = list(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
