"""The offline optima under the short name the issues use (``schedbench.offline.opt_max_flow``,
``schedbench.offline.opt_makespan``): a re-export of :mod:`schedbench.scheduling.offline`."""

from schedbench.scheduling.offline import *  # noqa: F401,F403
from schedbench.scheduling.offline import __all__  # noqa: F401
