"""What the suite's own practice policies share (``docs/models/rejection-model.md`` §13): each is a
speed baseline's rule run at speed 1 plus a rejection rule with one threshold θ > 0, tuned on
training instances by the practice comparison (:mod:`schedbench.scheduling.stage.practice`); none
is an algorithm of the source papers and none claims a ratio bound."""

from __future__ import annotations

from typing import Any

from schedbench.scheduling.algorithms.base import OnlineAlgorithm

__all__ = ["PracticePolicy"]


class PracticePolicy(OnlineAlgorithm):
    """Base of a practice policy (``greedy-reject``, ``edf-reject``, ``edf-evict``): its declarations,
    ``self.theta`` and :meth:`rejects`, the arrival-time test. A subclass sets ``self.budget`` (a
    :class:`~schedbench.scheduling.budget.Budget`) in its ``__init__``."""

    model = "rejection"
    rule_label = "R"
    bound = "none (the suite's own heuristic)"
    cites = ""
    section = ""
    reference = "schedbench's own practice policy, docs/models/rejection-model.md §13 (not in the source papers)"

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        cls._positive_number(params, "theta")

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.theta = float(self.params["theta"])
        self.counters = {"guard_fires": 0}

    def rejects(self, value: float, estimate: float, w: float = 1) -> bool:
        """Whether the arriving job (of budget weight ``w``) is rejected: ``value`` > θ·``estimate``
        and the budget allows it; over the threshold but past the budget it stays (a guard fire)."""
        if value > self.theta * estimate:
            if self.budget.take(w):
                return True
            self.counters["guard_fires"] += 1
        return False
