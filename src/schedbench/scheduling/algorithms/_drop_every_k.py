"""The drop-every-k rule shared by ``drop-every-k`` (LoadBalancing) and ``drop-every-k-flow``
(the flow-time problems): baseline B8 of ``docs/models/rejection-model.md`` §7 ("simulate speed
augmentation by dropping every (1/ε)-th job" [Q], paper overview).

Each machine rejects, on arrival, every k-th job routed to it (the k-th, 2k-th, ...),
k = ⌈1/ε⌉; a subclass chooses the dispatch.
"""

from __future__ import annotations

import numpy as np

from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.budget import drop_period


class DropEveryKRule(OnlineAlgorithm):
    """B8's declarations and per-machine count; :meth:`drops` counts a job routed to a machine."""

    model = "rejection"
    rule_label = "Q"
    bound = "none proven (budget holds by construction)"
    cites = "cdgk"
    section = "overview"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.k = drop_period(self.eps)  # ⌈1/ε⌉ (budget.py)
        self.routed = np.zeros(self.m, dtype=np.int64)

    def drops(self, i: int) -> bool:
        """Count a job routed to machine ``i``: whether it is that machine's k-th (rejected)."""
        self.routed[i] += 1
        return bool(self.routed[i] % self.k == 0)
