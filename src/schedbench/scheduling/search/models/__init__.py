"""One exact CP-SAT model per algorithm (see :mod:`._core` for the shared instance space)."""

from schedbench.scheduling.search.models import drop_every_k, greedy, greedy_cap, lb_unit_reject, mft_unit

#: algorithm name → its model module (``ALGORITHM``, ``PROBLEM``, ``UNIT_ONLY``, ``REJECTS``,
#: ``check(eps, params)``, ``build(builder, eps, params, T) -> Decisions``)
MODELS = {mod.ALGORITHM: mod for mod in (greedy, greedy_cap, lb_unit_reject, drop_every_k, mft_unit)}

__all__ = ["MODELS"]
