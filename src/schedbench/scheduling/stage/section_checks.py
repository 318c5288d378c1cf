"""What the checks of the scheduling wing's own config sections (``practice``,
``search.eps_sweep``) share: one rule for unknown keys and one for a list of ε values, each error
naming the key path. A leaf module (it imports no schedbench module), so a stage that uses it
adds only this file to its jobs' sources (``stage/config.py``, the wing's checks of the whole
config, would add the registry and the other stages' checks)."""

from __future__ import annotations

import math
from typing import Any, Sequence

__all__ = ["check_known_keys", "is_eps", "check_eps_values"]


def check_known_keys(section: dict, keys: Sequence[str], where: str, error: type[Exception]) -> None:
    """Refuse a key of ``section`` that is not among ``keys``: ``error`` naming the first such key
    (in sorted order) under the key path ``where`` and listing ``keys``."""
    unknown = sorted(set(section) - set(keys))
    if unknown:
        raise error(f"{where}.{unknown[0]}: unknown key (keys: {', '.join(keys)})")


def is_eps(value: Any) -> bool:
    """Whether a config value is an ε: a finite number in (0, 1), not a bool."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) and 0 < value < 1


def check_eps_values(values: list, where: str, error: type[Exception]) -> None:
    """Refuse a list of ε values with an entry that is not an ε (:func:`is_eps`) or with a value
    listed twice: ``error`` naming the key path ``where``. (How many values a list needs is the
    caller's rule.)"""
    for e in values:
        if not is_eps(e):
            raise error(f"{where}: every ε must be a number in (0, 1), got {e!r}")
    if len(set(values)) != len(values):
        raise error(f"{where}: a value is listed twice: {values!r}")
