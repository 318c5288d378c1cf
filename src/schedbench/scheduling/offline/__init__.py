"""Offline optima and lower bounds: the denominators of every competitive ratio."""

from schedbench.scheduling.offline.makespan import makespan_lower_bound, opt_makespan, trivial_bound
from schedbench.scheduling.offline.result import OptResult

__all__ = ["OptResult", "opt_makespan", "makespan_lower_bound", "trivial_bound"]
