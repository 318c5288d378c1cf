"""Offline optima and lower bounds: the denominators of every competitive ratio."""

from .makespan import makespan_lower_bound, opt_makespan, trivial_bound
from .result import OptResult

__all__ = ["OptResult", "opt_makespan", "makespan_lower_bound", "trivial_bound"]
