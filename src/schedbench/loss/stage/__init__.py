"""The loss wing's pipeline stage: points (:mod:`.experiments`), slope fits, config checks,
LaTeX tables, report views and figures. Its ``WING``
(:mod:`.wing`, loaded on first use) is what the hall knows of the wing."""

from __future__ import annotations

from schedbench.hall.lazy import lazy_getattr

_EXPORTS = {"WING": "schedbench.loss.stage.wing"}

__all__ = list(_EXPORTS)

__getattr__ = lazy_getattr(__name__, _EXPORTS)
