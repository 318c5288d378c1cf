"""schedbench: online load balancing and scheduling with job rejection, benchmarked.

Quick start::

    import schedbench
    inst = schedbench.Instance.from_lists(2, [0, 0, 0], [1, 1, 1], [[0], [0, 1], [1]])
    res = schedbench.run("lb-unit-reject", inst, eps=0.25)
    res.objective, res.valid, res.ratio
"""

from importlib.metadata import PackageNotFoundError, version

from schedbench.api import RunResult, run, run_adversary
from schedbench.scheduling.model import Instance, InstanceError, Outcome
from schedbench.scheduling.offline import OptResult, opt_makespan, solve_opt
from schedbench.scheduling.registry import (adversary_names, algorithm_names, family_names, get_adversary,
                                           get_algorithm, get_family)

try:
    __version__ = version("schedbench")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = [
    "Instance", "InstanceError", "Outcome", "OptResult", "RunResult", "run", "run_adversary", "opt_makespan",
    "solve_opt", "algorithm_names", "family_names", "adversary_names", "get_algorithm", "get_family",
    "get_adversary", "__version__",
]
