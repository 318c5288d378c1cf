"""One exact CP-SAT model per algorithm (see :mod:`._core` for the shared instance space)."""

from schedbench.scheduling.search.models import drop_every_k, greedy, greedy_cap, lb_unit_reject, mft_unit

#: algorithm name → its :class:`~._core.ExactModel` (each module's ``MODEL``)
MODELS = {mod.MODEL.algorithm: mod.MODEL for mod in (greedy, greedy_cap, lb_unit_reject, drop_every_k, mft_unit)}

__all__ = ["MODELS"]
