"""The scheduling wing's pipeline stage: instances, online runs, adversary games and optima
(:mod:`.experiment`), the worst-case search (:mod:`.search`), config checks, the tidy results
table, LaTeX tables, the method table, report views and figures. Its
``WING`` (:mod:`.wing`, loaded on first use) is what the hall knows of the wing."""

from __future__ import annotations

from schedbench.hall.lazy import lazy_getattr

_EXPORTS = {"WING": "schedbench.scheduling.stage.wing"}

__all__ = list(_EXPORTS)

__getattr__ = lazy_getattr(__name__, _EXPORTS)
