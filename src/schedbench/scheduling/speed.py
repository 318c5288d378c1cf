"""The machine speed an algorithm's run uses, decided from its model and ε in this one place
(``docs/models/rejection-model.md`` §1.5):

=============  ================================  =============
model          ε means                           machine speed
=============  ================================  =============
``rejection``  the rejected fraction (budget)    1
``speed``      extra speed (speed augmentation)  1 + ε
``plain``      nothing (ε is None)               1
=============  ================================  =============

The engine applies the speed (it asks :func:`machine_speed`, not the algorithm class);
``OnlineAlgorithm.speed_for`` forwards here. The validator recomputes the expected speed
independently. The rejection budget itself lives in ``budget.py``.
"""

from __future__ import annotations

__all__ = ["machine_speed"]


def machine_speed(model: str, eps: float | None) -> float:
    """1 + ε for a speed-model algorithm, 1 for rejection and plain ones."""
    return 1.0 + float(eps) if model == "speed" else 1.0
